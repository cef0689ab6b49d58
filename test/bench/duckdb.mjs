// test/bench/duckdb.mjs — the DuckDB side of `make bench-duckdb`: builds
// tables shaped like the PostgreSQL benchmark's (t: random int8 a, random
// float8 f, md5 text s, random int4 i; t2: half of t's keys, the rest one
// more) in an in-memory DuckDB, and prints, per query, the best wall time
// in ms of `reps` runs of EXPLAIN ANALYZE (the query runs whole, its rows
// are discarded, as with PostgreSQL's EXPLAIN ANALYZE).
//   node duckdb.mjs ROWS REPS  < queries (one per line: label<TAB>sql)
//   prints: label<TAB>ms
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const rows = Number(process.argv[2]);
const reps = Number(process.argv[3] ?? 2);
const queries = readFileSync(0, 'utf8').split('\n').filter((l) => l.includes('\t'))
  .map((l) => l.split('\t'));

const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
await con.run(`CREATE TABLE t AS SELECT (random() * 1e18)::BIGINT AS a, random() AS f,
  md5(g::VARCHAR) AS s, (random() * 2e9 - 1e9)::INTEGER AS i FROM range(1, ${rows + 1}) r(g)`);
await con.run(`CREATE TABLE t2 AS SELECT CASE WHEN random() < 0.5 THEN a ELSE a + 1 END AS a, f FROM t`);
const threads = (await (await con.run("SELECT current_setting('threads')")).getRows())[0][0];
console.error(`duckdb: ${rows} rows, ${threads} threads`);
for (const [label, sql] of queries) {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await (await con.run(`EXPLAIN ANALYZE ${sql}`)).getRows();
    best = Math.min(best, performance.now() - t0);
  }
  console.log(`${label}\t${best.toFixed(1)}`);
}
