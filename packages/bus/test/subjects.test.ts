import { shardProbe } from '@sml/bus';

describe('failover probe subjects', () => {
  it('a projects shard operation probes its shard; any other subject has no probe', () => {
    expect(shardProbe('sml.projects.0.learn')).toBe('sml.projects.0.alive');
    expect(shardProbe('sml.projects.13.summary')).toBe('sml.projects.13.alive');
    expect(shardProbe('sml.jobs.get')).toBeUndefined();
    expect(shardProbe('sml.projects.x.learn')).toBeUndefined();
    expect(shardProbe('sml.projects.1.a.b')).toBeUndefined();
  });
});
