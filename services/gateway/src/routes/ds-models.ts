import { contracts } from '@sml/bus';
import { defineRoute } from '../route';
import { mlContext, name, userParam, z } from '../schemas';
import { AUTOSELECT_DESCRIPTION, autoSelectQuery } from './models';

const ops = contracts.projects;
const projectParams = userParam.extend({ pid: name('project') });
type Ctx = z.infer<typeof mlContext>;

const predictColumns = z.object({
  attributeNames: z.array(z.string()).default([]),
  attributeTypes: z.array(z.string()).default([]),
  errorHandling: z.coerce.number().int().min(0).max(1).default(0),
}).openapi({ description: 'Optional: the input columns given to the model (by header name; empty = every column, typed by the DSInfo extra or guessed) and errorHandling (1: rows of the wrong length are skipped and counted)' });

/**
 * Models with data sources (API.md §12): batch scoring from one data source into another,
 * and selectModel scored on a data source. Matched after the project and EVT routes, so a
 * data source named `learn`/`forget` or `evtwrapper` keeps its older meaning.
 */
export const dsModelRoutes = [
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/dss/predict/:m', operationId: 'predictDataSource', tags: ['models', 'dss'],
    summary: 'Batch scoring (a job): predict every row of data source indsname with model m, write the rows and their predictions to data source outdsname',
    description: 'The input (any type) is read in batches of 2000 rows (bounded memory) and each batch is predicted exactly as POST predict/{m} predicts a frame. '
      + 'The output holds every input column, then one column per prediction key (the keys predict answers, docs/algorithms.md; a key named like an input column gets the suffix _Result), in the order of the first row\'s prediction. '
      + 'Outputs: localfile — a CSV file (header row, the DSInfo\'s csv_entry_separator/csv_quote_character; .gz paths gzipped) at info.path under the customer\'s files root, written to a temporary file in the same directory and renamed at the end (missing directories are created; paths escaping the root are refused as when reading); '
      + 'redshift — rows appended to the table info.path (created when absent: input columns text, numeric prediction columns double precision, others text; an empty cell is NULL) in one transaction committed at the end. '
      + 's3 and http data sources cannot be outputs (400). A failure or a cancel (DELETE jobs/{id}) writes nothing. '
      + 'Body (optional): attributeNames/attributeTypes of the input columns given to the model and errorHandling (0 strict: a row of the wrong length fails the job naming file and line; 1: such rows are skipped and counted). '
      + 'The finished job reads 200 Job is finished with values.predictReport {rowsRead, rowsPredicted, rowsSkipped, bytesRead, bytesWritten, attributeNames (the output\'s columns), errors (≤ 10)}.',
    contract: ops.dsPredict,
    params: projectParams.extend({ m: name('model') }),
    query: z.object({ indsname: name('data source'), outdsname: name('data source') }),
    body: predictColumns.optional(),
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => {
      const b = (body ?? {}) as Partial<z.infer<typeof predictColumns>>;
      return {
        caller, pid: params.pid, modelId: params.m, indsname: String(query.indsname), outdsname: String(query.outdsname),
        frame: { attributeNames: b.attributeNames ?? [], attributeTypes: b.attributeTypes ?? [], errorHandling: b.errorHandling ?? 0 },
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/selectModel/:ds', operationId: 'selectModelOnDataSource', tags: ['models', 'dss'],
    summary: 'selectModel (a job) scored on the rows of a registered data source instead of an inline dataframe',
    description: 'Body: MLContext. As POST selectModel, with the validation/scoring rows read from data source {ds} when the job runs (every column; the frame an inline dataframe would be). '
      + 'Selection keeps those rows in memory: a source with more than SML_MAX_SELECT_DS_ROWS rows (default 1 000 000), or whose cells pass SML_BODY_LIMIT (characters + 16 per cell, the inline dataframe\'s bound), fails the job with 400 naming the bound. '
      + 'A row of the wrong length fails the job naming file and line. The finished job reads 200 Job is finished with values.modelInfo (assessment on the data source).',
    contract: ops.dsSelectModel,
    params: projectParams.extend({ ds: name('data source') }),
    query: z.object({ modelid: name('model'), algo: z.string().min(1) }),
    body: mlContext,
    success: { status: 202, description: 'SelectModel Job Created' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => ({
      caller, pid: params.pid, ds: params.ds, modelId: String(query.modelid), algo: String(query.algo), mlcontext: body as Ctx,
    }),
  }),
  defineRoute({
    method: 'post', path: '/:user/projects/:pid/autoSelect/:ds', operationId: 'autoSelectOnDataSource', tags: ['models', 'dss'],
    summary: 'autoSelect (a job) scored on the rows of a registered data source instead of an inline dataframe',
    description: AUTOSELECT_DESCRIPTION + ' Body: MLContext; the scoring rows are read from data source {ds} when the job runs, as selectModel/{ds} reads them (SML_MAX_SELECT_DS_ROWS, SML_BODY_LIMIT).',
    contract: ops.dsAutoSelect,
    params: projectParams.extend({ ds: name('data source') }),
    query: autoSelectQuery,
    body: mlContext,
    success: { status: 202, description: 'Job Created' }, createsJob: true,
    toRequest: ({ caller, params, query, body }) => ({
      caller, pid: params.pid, ds: params.ds, modelId: String(query.modelid), task: String(query.task), mlcontext: body as Ctx,
    }),
  }),
];
