import type { AnyRoute } from '../route';
import { dsModelRoutes } from './ds-models';
import { dssRoutes } from './dss';
import { encoderRoutes } from './encoders';
import { exploreRoutes } from './explore';
import { jobRoutes } from './jobs';
import { fedmlRoutes } from './fedml';
import { fusionRoutes } from './fusion';
import { evtRoutes, modelRoutes } from './models';
import { projectRoutes } from './projects';
import { streamRoutes } from './streams';
import { userRoutes } from './users';

/** Every REST route of the gateway, in matching order. */
export const routes: AnyRoute[] = [
  ...jobRoutes, ...userRoutes, ...dssRoutes, ...fusionRoutes, ...fedmlRoutes, ...projectRoutes, ...exploreRoutes, ...modelRoutes, ...evtRoutes, ...dsModelRoutes,
  ...encoderRoutes, ...streamRoutes,
];
