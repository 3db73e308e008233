import type { Command } from 'commander';
import { contracts, isOk } from '@sml/bus';
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
      const reply = await client.call(contracts.users.add, { caller, cid: user, root: opts.root === true });
      const body = busEnvelope(reply.status, isOk(reply.status) ? { secretKey: reply.secretKey } : {});
      return out.envelope(body, (v) => `${body.statusString}\nsecret key (shown only once): ${v.secretKey}`);
    })));

  userCommand
    .command('list')
    .description('list customers')
    .action(action(ctx, (out) => bus(async ({ client, caller }) => {
      const reply = await client.call(contracts.users.list, { caller });
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
      const reply = await client.call(contracts.users.rotate, { caller, cid: user });
      const body = busEnvelope(reply.status, isOk(reply.status) ? { secretKey: reply.secretKey } : {});
      return out.envelope(body, (v) => `${body.statusString}\nsecret key (shown only once): ${v.secretKey}`);
    })));

  userCommand
    .command('delete')
    .description('delete a customer')
    .argument('<id>', 'customer id')
    .action(action(ctx, (out, user: string) => bus(async ({ client, caller }) => {
      const reply = await client.call(contracts.users.delete, { caller, cid: user });
      const body = busEnvelope(reply.status, {});
      return out.envelope(body, () => body.statusString);
    })));
}
