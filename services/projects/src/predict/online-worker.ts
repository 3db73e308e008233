import { parentPort } from 'node:worker_threads';
import { learnOnline, onlineTransferList } from '@sml/stats';
import type { OnlineReply, OnlineTask } from './online-pool';

// An online-model thread (online-pool.ts): learns the frames into the state it is sent and
// sends the state back, its forest arrays transferred. It keeps nothing between tasks.
parentPort!.on('message', (task: OnlineTask) => {
  let reply: OnlineReply;
  try {
    reply = { id: task.id, state: learnOnline(task.options, task.state, task.frames) };
  } catch (err) {
    reply = { id: task.id, error: (err as Error).message };
  }
  parentPort!.postMessage(reply, 'state' in reply ? onlineTransferList(reply.state) : []);
});
