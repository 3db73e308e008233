import { decryptDsInfo } from '@sml/core';
import { sml } from './run';
import { StandInGateway } from './standin';

// `sml streams …` against a stand-in gateway that checks the signature, records each request
// and answers the envelopes of API.md §9 (the service itself: services/streams tests).
describe('sml streams (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  const sent = (i = 0) => decryptDsInfo(gw.seen[i].body as string, gw.env.SML_SECRET!);
  const calls = () => gw.seen.map((s) => `${s.method} ${s.path}${s.query.size ? `?${s.query.toString()}` : ''}`);
  const dataframe = { attributeNames: ['x', 'y'], attributeTypes: ['C', 'S'], data: [['1', 'a'], ['2', 'b']], errorHandling: 0 };

  beforeAll(async () => {
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(() => gw.close());

  it('create sends the encrypted DSInfo and fromBeginning; list, start, stop, delete address the stream', async () => {
    gw.answer = (s) => (s.path.endsWith('/list') ? { status: 200, statusString: 'OK', values: { stringList: { values: ['sk'] } } }
      : { status: s.path.endsWith('/create') ? 201 : 200, statusString: 'done' });
    let r = await sml(['streams', 'create', 'p', 'sk', '--type', 'kafka', '--info', 'bootstrap.servers=b:9092', '--info', 'kafka.topic=t', '--info', 'attributeNames=x,y', '--extra', 'C,C', '--from-beginning'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'done\n', stderr: '' });
    expect(sent()).toEqual({ type: 'kafka', name: 'sk', info: { 'bootstrap.servers': 'b:9092', 'kafka.topic': 't', attributeNames: 'x,y' }, extra: ['C', 'C'] });
    r = await sml(['streams', 'list', 'p'], gw.env);
    expect(r.stdout).toBe('sk\n');
    for (const op of ['start', 'stop', 'delete']) expect((await sml(['streams', op, 'p', 'sk'], gw.env)).code).toBe(0);
    expect(calls()).toEqual([
      'POST /symetry/rest/c1/projects/p/streams/create?fromBeginning=true', 'GET /symetry/rest/c1/projects/p/streams/list',
      'GET /symetry/rest/c1/projects/p/streams/sk/start', 'GET /symetry/rest/c1/projects/p/streams/sk/stop', 'DELETE /symetry/rest/c1/projects/p/streams/sk',
    ]);
    r = await sml(['streams', 'create', 'p', 's', '--type', 'mqtt'], gw.env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('Allowed choices are kafka, nats.')]);
  });

  it('metrics as a table, errors as lines', async () => {
    gw.answer = (s) => (s.path.endsWith('/metrics')
      ? { status: 200, statusString: 'OK', values: { KSVSMap: { values: [{ state: 'running', recordsLearned: '10' }] } } }
      : { status: 200, statusString: 'OK', values: { stringList: { values: ['offset 3: not JSON'] } } });
    expect((await sml(['streams', 'metrics', 'p', 's'], gw.env)).stdout).toMatch(/^METRIC +VALUE\nstate +running\nrecordsLearned +10\n$/);
    expect((await sml(['streams', 'errors', 'p', 's'], gw.env)).stdout).toBe('offset 3: not JSON\n');
  });

  it('poll: --sid alone, or the DSInfo of the options; a kafka-poll 400 still prints the records it carries', async () => {
    gw.answer = (s) => (s.query.get('sid') ? { status: 200, statusString: 'OK', values: { dataframe } }
      : { status: 400, statusString: 'Preview invalid DS Stream type [kafka-poll]', values: { dataframe } });
    let r = await sml(['streams', 'poll', '--sid', 'kds', '--from-beginning'], gw.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^x \(C\) +y \(S\)\n1 +a\n2 +b\n$/);
    r = await sml(['streams', 'poll', '--type', 'kafka-poll', '--name', 'p1', '--info', 'bootstrap.servers=b:9092', '--info', 'kafka.topic=t'], gw.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^x \(C\) +y \(S\)\n1 +a\n/);
    expect(r.stderr).toBe('Preview invalid DS Stream type [kafka-poll]\n');
    expect(sent(1)).toEqual({ type: 'kafka-poll', name: 'p1', info: { 'bootstrap.servers': 'b:9092', 'kafka.topic': 't' }, extra: [] });
    gw.answer = () => ({ status: 200, statusString: 'OK' });
    expect((await sml(['streams', 'close-poller', 'p1'], gw.env)).stdout).toBe('OK\n');
    expect(calls()).toEqual(['POST /symetry/rest/c1/streams/poll?sid=kds&fromBeginning=true', 'POST /symetry/rest/c1/streams/poll', 'DELETE /symetry/rest/c1/streams/poll?sid=p1']);
  });

  it('browse prints streams (with /) or topics and subjects; preview the records', async () => {
    gw.answer = (s) => (s.path.endsWith('/preview') ? { status: 200, statusString: 'OK', values: { dataframe } }
      : gw.seen.length === 1 ? { status: 200, statusString: 'OK', values: { dsdirectoryListing: { ok: true, dirs: ['EVENTS'] } } }
        : { status: 200, statusString: 'OK', values: { dsdirectoryListing: { ok: true } } });
    expect((await sml(['streams', 'browse', '--type', 'nats', '--info', 'nats_hosts=nats://n:4222'], gw.env)).stdout).toBe('EVENTS/\n');
    expect((await sml(['streams', 'browse', '--type', 'nats', '--info', 'nats_hosts=nats://n:4222', '--info', 'path=NOPE'], gw.env)).stdout).toBe('Nothing\n');
    expect((await sml(['streams', 'preview', '--type', 'nats', '--info', 'nats_hosts=nats://n:4222', '--info', 'nats.subject=a'], gw.env)).stdout).toMatch(/^x \(C\)/);
    expect(calls()).toEqual(['POST /symetry/rest/c1/streams/browse', 'POST /symetry/rest/c1/streams/browse', 'POST /symetry/rest/c1/streams/preview']);
    expect(sent(2)).toEqual({ type: 'nats', name: 'preview', info: { nats_hosts: 'nats://n:4222', 'nats.subject': 'a' }, extra: [] });
  });
});
