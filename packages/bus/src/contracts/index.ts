import type { Contract } from './contract';
import { encoders } from './encoders';
import { explore } from './explore';
import { federation } from './federation';
import { jobs } from './jobs';
import { projects } from './projects';
import { streams } from './streams';
import { users } from './users';

export * from './contract';
export type { EncodersOp } from './encoders';
export type { ExploreOp } from './explore';
export type { FederationOp } from './federation';
export type { JobsOp } from './jobs';
export type { ProjectsOp } from './projects';
export type { StreamsOp } from './streams';
export type { UsersOp } from './users';

/** Every bus operation, by service: `contracts.projects.learn` … */
export const contracts = { projects, explore, encoders, streams, jobs, users, federation } as const;

/** Every contract, for the checks that each has its route and each route its contract. */
export const allContracts = (): Contract[] => Object.values(contracts).flatMap((byOp: Record<string, Contract>) => Object.values(byOp));
