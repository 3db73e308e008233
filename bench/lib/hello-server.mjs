// The baseline: a plain express app answering the same route with the same envelope as the
// gateway's empty jobs list, without authentication or bus. Run as a child process (like
// the gateway) and reports its port to the parent over IPC.
import express from 'express';

const body = { statusCode: 200, statusString: 'OK', values: { jobinfolist: [] } };
const app = express();
app.disable('x-powered-by');
app.get('/symetry/rest/:user/jobs', (_req, res) => void res.json(body));
const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
