// jstat has no type declarations; this is the slice of it the models use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { jStat } = require('jstat') as {
  jStat: {
    studentt: { cdf(x: number, df: number): number; inv(p: number, df: number): number };
    normal: { cdf(x: number, mean: number, sd: number): number; inv(p: number, mean: number, sd: number): number };
    chisquare: { cdf(x: number, df: number): number; inv(p: number, df: number): number };
  };
};

export const studentT = jStat.studentt;
export const normal = jStat.normal;
export const chiSquare = jStat.chisquare;
