import { contracts } from '@sml/bus';
import { sml } from '@sml/proto';
import { replyValues } from '../envelope';
import { defineRoute, type Presentation, type RouteContext } from '../route';
import { boolParam, exploreContext, mlContext, name, userParam, z } from '../schemas';

const ops = contracts.explore;

const projectParams = userParam.extend({ pid: name('project') });
/** The keys of a result whose values are approximate (an added key: SymetryML clients read the others as before). */
const approximateKeys = z.array(z.string());
type Ctx = z.infer<typeof exploreContext>;
const contextOf = (body: unknown) => ({ values: (body as Ctx | undefined)?.values ?? [] });

/** A density's values with its `approximate` only where set: an exact density carries no mark (not `null`). */
function presentDensities(reply: sml.v1.DensityReply): Presentation {
  const values = replyValues(sml.v1.DensityReply, reply);
  for (const d of (values.densityList as { values: Record<string, unknown>[] } | undefined)?.values ?? []) if (d.approximate === null) delete d.approximate;
  return { status: reply.status ?? { code: 200, message: 'OK' }, values };
}

const density = (op: 'densityEstimate' | 'conditionalDensityEstimate', contract: typeof ops.density | typeof ops.conditionalDensity, summary: string) => defineRoute({
  method: 'post', path: `/:user/projects/:pid/${op}`, operationId: op, tags: ['explore'], summary,
  description: 'One MLContext per estimate, attributes by name (inputAttributeNames). extraParameters: hist_bins (default 20), hist_is_normalized. A body without `values` answers an empty list. `tps` bounds how many entries are computed at once (they run on one thread here).',
  contract,
  params: projectParams, query: z.object({ tps: z.string().regex(/^\d+$/, 'tps must be a positive integer').optional(), useLocal: boolParam.optional() }),
  body: exploreContext,
  values: z.object({ densityList: z.object({ values: z.array(z.object({
    attrName: z.string(), min: z.number(), max: z.number(), width: z.number(), histogram: z.array(z.number()), valueForMissing: z.number(),
    approximate: approximateKeys.optional().openapi({ description: 'Only from a streaming histogram: ["min", "max", "width", "histogram"] (bounds within one stored bin, counts split over the output bins; docs/concepts.md "What is approximate"). Absent when exact.' }),
  })) }) }),
  success: { status: 200, description: 'values.densityList.values' },
  toRequest: ({ caller, params, query, body }: RouteContext) => ({
    caller, pid: params.pid, context: contextOf(body), noValues: (body as Ctx | undefined)?.values === undefined,
    tps: Number(query.tps ?? 10), useLocal: query.useLocal === true,
  }),
  present: presentDensities,
});

const matrix = (path: string, kind: string, summary: string) => defineRoute({
  method: 'post', path: `/:user/projects/:pid/${path}`, operationId: path, tags: ['explore'], summary,
  contract: ops.matrix,
  params: projectParams, query: z.object({ useLocal: boolParam.optional() }), body: exploreContext,
  success: { status: 202, description: 'Job Created; the finished job carries the result' }, createsJob: true,
  toRequest: ({ caller, params, query, body }: RouteContext) => ({ caller, pid: params.pid, kind, context: contextOf(body), useLocal: query.useLocal === true }),
});

const dataFrameMap = z.record(z.string(), z.object({ attributeNames: z.array(z.string()), attributeTypes: z.array(z.string()), data: z.array(z.array(z.string())) }));

export const exploreRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/explore', operationId: 'explore', tags: ['explore'],
    summary: 'Explore: descriptive statistics and tests, one result map per MLContext',
    description: 'metric ∈ uni, bi, gain, anova, ztest, ztestp, ztestmu, ttest, ttestmu, ftest, ftestsigma, chi2 (docs/glossary.md for the keys). NaN/Infinity results are the strings "NaN"/"Infinity". useLocal applies to federated projects only.',
    contract: ops.run,
    params: projectParams,
    query: z.object({ metric: z.string(), useLocal: boolParam.optional(), returnProjectInfo: boolParam.optional(), async: boolParam.optional() }),
    body: exploreContext,
    values: z.object({
      KSVDMap: z.object({ values: z.array(z.record(z.string(), z.number())) }),
      approximate: z.array(approximateKeys).optional().openapi({ description: 'One list per map of KSVDMap.values: its keys whose values are approximate (uni: min, median, max unless the project keeps exact histograms; gain: a continuous input binned by a streaming histogram; docs/concepts.md "What is approximate"). Absent when every value is exact.' }),
      smlInfo: z.object({}).passthrough().optional(),
    }),
    success: { status: 200, description: 'values.KSVDMap.values (+ values.smlInfo unless returnProjectInfo=false)' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => ({
      caller, pid: params.pid, metric: String(query.metric), context: contextOf(body), useLocal: query.useLocal === true,
      returnProjectInfo: query.returnProjectInfo !== false, async: query.async === true,
    }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/dataDrift', operationId: 'dataDrift', tags: ['explore'],
    summary: 'Data drift between two projects: one map {driftScore, <attribute>_drift…}',
    description: 'Body: MLContext. extraParameters: driftPreferenceProjectName (the baseline), driftAnalysisProjectName, driftMetric ∈ marginal_stat (Kolmogorov–Smirnov D, + <attribute>_pvalue), marginal_non_stat (Jensen–Shannon distance, base 2), global (Hellinger distance of fitted normals; driftScore: of the multivariate normals), pca_reconstruction_error (residual mean square off the baseline\'s principal components, relative to the baseline\'s; 1 = no drift; pca_num_components overrides the 95 % rule). inputAttributeNames: the attributes compared (empty: every attribute both projects have). Continuous attributes need histograms in both projects for the marginal metrics. README "Data drift"; docs/glossary.md for the keys.',
    contract: ops.dataDrift,
    params: userParam,
    body: mlContext,
    values: z.object({
      KSVDMap: z.object({ values: z.array(z.record(z.string(), z.number())) }),
      approximate: z.array(approximateKeys).optional().openapi({ description: 'One list for the map: its keys whose values are approximate (a marginal metric of a continuous attribute read from a streaming histogram, and then driftScore; docs/concepts.md "What is approximate"). Absent when every value is exact.' }),
    }),
    success: { status: 200, description: 'values.KSVDMap.values[0]' },
    toRequest: ({ caller, body }) => ({ caller, context: body as z.infer<typeof mlContext> }),
  }),
  density('densityEstimate', ops.density, 'Histogram density of one attribute per entry'),
  density('conditionalDensityEstimate', ops.conditionalDensity, 'Density of a target attribute over the rows where a binary conditional attribute is 1 (names [conditional, target])'),
  matrix('exploresvdfs', 'svdfs', 'SVD feature selection (always a job): values.KSVSMap.values[] maps input position → name of the kept inputs'),
  matrix('explorepca', 'pca', 'PCA of the correlation (or covariance, pca_use_covariance=true) matrix (job): values.pcaList[]'),
  matrix('exploresvd', 'svd', 'SVD of the correlation matrix (job): values.svdList[]'),
  matrix('vif', 'vif', 'Variance inflation factors (job): values.KSVDMap.values[] attribute → VIF'),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/km/kaplanmeier', operationId: 'kaplanMeier', tags: ['survival'],
    summary: 'Kaplan-Meier survival at the given times, per group (+ Total when no group is given)',
    contract: ops.kaplanMeier,
    params: projectParams,
    body: z.object({ values: z.array(z.object({ type: z.string(), times: z.array(z.number()).min(1, 'times are required'), group: z.string().optional(), alpha: z.number().optional() })) }),
    values: z.object({ kmResultList: z.object({ values: z.array(dataFrameMap) }) }),
    success: { status: 200, description: 'values.kmResultList.values[]: group → DataFrame(time, survival, lower, upper, atRisk, events)' },
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, values: (body as { values: sml.v1.IKmQuery[] }).values }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/cif/predictEvent', operationId: 'cumulativeIncidence', tags: ['survival'],
    summary: 'Cumulative incidence of event type k at the given times (Aalen-Johansen)',
    contract: ops.cumulativeIncidence,
    params: projectParams,
    body: z.object({ values: z.array(z.object({ k: z.number().int().min(1), group: z.string().optional(), times: z.array(z.number()).min(1, 'times are required') })) }),
    values: z.object({ cifPredictionList: z.object({ values: z.array(z.object({ sdfmap: dataFrameMap })) }) }),
    success: { status: 200, description: 'values.cifPredictionList.values[]: {sdfmap: {group: DataFrame(time, event_<k>)}}' },
    toRequest: ({ caller, params, body }) => ({ caller, pid: params.pid, values: (body as { values: sml.v1.ICifQuery[] }).values }),
  }),
];
