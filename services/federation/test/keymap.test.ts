import { SmlError } from '@sml/core';
import { backboneKeys, createOptionsOf, joinOptionsOf } from '../src/keymap';

const base = { fed_name: 'heart', sync_sched: 'm5', nats_hosts: 'nats://a.example.com:4222, nats://b.example.com:4222' };
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SmlError);
    return [(e as SmlError).status, (e as SmlError).message];
  }
  throw new Error('not refused');
};

describe('federation key maps', () => {
  it('reads a create map with its defaults', () => {
    const o = createOptionsOf(base, 60_000);
    expect(o).toMatchObject({ fedName: 'heart', syncSched: 'm5', localType: 'cpu', reqTimeoutMs: 30_000, streamMaxBytes: 1024 ** 3, sndAction: 'block', rcvAction: 'block' });
    expect(o.backbone.servers).toEqual(['nats://a.example.com:4222', 'nats://b.example.com:4222']);
  });

  it('refuses AWS keys, SMPC, HIPAA, missing keys, bad values and schedules under the minimum', () => {
    const aws = 'AWS-backed federation is not supported; use a NATS backbone (nats_hosts)';
    expect(refused(() => createOptionsOf({ ...base, aws_region: 'us-east-1' }, 60_000))).toEqual([400, aws]);
    expect(refused(() => createOptionsOf({ fed_name: 'x', sync_sched: 'm5', s3_bucket: 'b' }, 60_000))).toEqual([400, aws]);
    expect(refused(() => createOptionsOf({ ...base, fed_use_smpc: 'TRUE' }, 60_000))).toEqual([400, 'SMPC federation is not supported']);
    expect(refused(() => createOptionsOf({ ...base, fed_enforce_hipaa_compliance: 'true' }, 60_000))).toEqual([400, 'HIPAA compliance mode is not supported']);
    expect(createOptionsOf({ ...base, fed_use_smpc: 'false', fed_enforce_hipaa_compliance: 'false' }, 60_000).fedName).toBe('heart');
    expect(refused(() => createOptionsOf({ fed_name: 'x', sync_sched: 'm5' }, 60_000))).toEqual([400, 'Missing required key [nats_hosts]']);
    expect(refused(() => createOptionsOf({ ...base, sync_sched: 's1' }, 60_000))).toEqual([400, 'Invalid schedule [s1]']);
    expect(createOptionsOf({ ...base, sync_sched: 's1' }, 500).syncSched).toBe('s1');
    expect(refused(() => createOptionsOf({ ...base, fed_local_type: 'mgpuf' }, 60_000))[1]).toMatch(/^Invalid value \[mgpuf\] for key \[fed_local_type\]/);
    expect(refused(() => createOptionsOf({ ...base, fed_local_type: 'partition' }, 60_000))).toEqual([400, 'Missing required key [partitionSplit]']);
    expect(refused(() => createOptionsOf({ ...base, nats_hosts: 'http://x:1' }, 60_000))[1]).toContain('expected nats:// URLs');
    expect(refused(() => createOptionsOf({ ...base, nats_req_timeout: '0' }, 60_000))[1]).toContain('[nats_req_timeout]');
    expect(refused(() => createOptionsOf({ ...base, fed_psr_contract_snd_fail_action: 'fed_psr_contract_rcv_fail_action_allow' }, 60_000))[0]).toBe(400);
    expect(refused(() => createOptionsOf({ ...base, fed_name: '../x' }, 60_000))[0]).toBe(400);
  });

  it('reads a join map; a key the invitation must carry makes it invalid; credentials go back into an invitation as given', () => {
    const inv = { ...base, fed_secret_key: 'AAAAAAAAAAAAAAAAAAAAAA==', fed_req_token: 'FEDTOKEN' + '0'.repeat(32), fed_id: 'T', fed_admin_pubkey: 'K', nats_sec_user: 'u', nats_sec_passwd: 'p' };
    const o = joinOptionsOf({ ...inv, fed_local_type: 'gpu', fed_psr_contract_rcv_fail_action: 'fed_psr_contract_rcv_fail_action_allow' });
    expect(o).toMatchObject({ localType: 'gpu', rcvAction: 'allow', sndAction: 'block', token: inv.fed_req_token });
    expect(backboneKeys(o.backbone)).toEqual({ nats_hosts: 'nats://a.example.com:4222,nats://b.example.com:4222', nats_sec_user: 'u', nats_sec_passwd: 'p' });
    const { fed_admin_pubkey: _, ...withoutKey } = inv;
    expect(refused(() => joinOptionsOf(withoutKey))).toEqual([400, 'Invalid federation invitation']);
  });
});
