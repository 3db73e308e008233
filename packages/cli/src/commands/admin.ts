import type { Command } from 'commander';
import { isOk, subjects } from '@sml/bus';
import { sml } from '@sml/proto';
import { busEnvelope, withAdminBus, type AdminBus } from '../bus';
import { action, type CommandContext } from '../command';
import { table } from '../table';

/** `sml admin user add|list|rotate|delete`: the customer registry, over the bus as root (API.md §11). */
export function registerAdmin(program: Command, ctx: CommandContext): void {
  const userCommand = program
    .command('admin')
    .description('administration over the bus (NATS_URL), acting as SML_ROOT_USER')
    .command('user')
    .description('customers and their secret keys');
  const bus = <T>(fn: (bus: AdminBus) => Promise<T>) => withAdminBus(ctx.io.env, fn);

  userCommand
    .command('add')
    .description('create a customer and print its secret key (shown only this once)')
    .argument('<id>', 'customer id')
    .option('--root', 'the customer may manage users and list every job')
    .action(action(ctx, (out, user: string, opts: { root?: boolean }) => bus(async ({ client, caller }) => {
      const reply = await client.request('users', subjects.users.add, sml.v1.UserAddRequest, { caller, cid: user, root: opts.root === true }, sml.v1.UserSecretReply);
      const body = busEnvelope(reply.status, isOk(reply.status) ? { secretKey: reply.secretKey } : {});
      return out.envelope(body, (v) => `${body.statusString}\nsecret key (shown only once): ${v.secretKey}`);
    })));

  userCommand
    .command('list')
    .description('list customers')
    .action(action(ctx, (out) => bus(async ({ client, caller }) => {
      const reply = await client.request('users', subjects.users.list, sml.v1.UserListRequest, { caller }, sml.v1.UserListReply);
      const users = (reply.users ?? []).map((u) => ({ cid: u.cid ?? '', root: u.root === true, created: Number(u.created ?? 0) }));
      return out.envelope(busEnvelope(reply.status, { users }), (v) => table(
        ['CUSTOMER', 'ROOT', 'CREATED'],
        v.users.map((u) => [u.cid, u.root ? 'yes' : 'no', u.created > 0 ? new Date(u.created).toISOString() : '']),
      ));
    })));

  userCommand
    .command('rotate')
    .description("replace a customer's secret key and print the new one; the old one stops working")
    .argument('<id>', 'customer id')
    .action(action(ctx, (out, user: string) => bus(async ({ client, caller }) => {
      const reply = await client.request('users', subjects.users.rotate, sml.v1.UserRequest, { caller, cid: user }, sml.v1.UserSecretReply);
      const body = busEnvelope(reply.status, isOk(reply.status) ? { secretKey: reply.secretKey } : {});
      return out.envelope(body, (v) => `${body.statusString}\nsecret key (shown only once): ${v.secretKey}`);
    })));

  userCommand
    .command('delete')
    .description('delete a customer')
    .argument('<id>', 'customer id')
    .action(action(ctx, (out, user: string) => bus(async ({ client, caller }) => {
      const reply = await client.request('users', subjects.users.delete, sml.v1.UserRequest, { caller, cid: user }, sml.v1.Empty);
      const body = busEnvelope(reply.status, {});
      return out.envelope(body, () => body.statusString);
    })));
}
