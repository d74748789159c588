/**
 * `@diagnosis/core/adapters`: the real evidence adapters (the only code that imports AWS SDKs and drivers), chosen by
 * configuration in `functions/`. Kept off the package root so the harness can be used without them.
 */
export { createMysqlAdapter, limitStatement, type MysqlAdapterOptions, type MysqlDialect } from './mysql-adapter.ts';
export {
  loadMysqlCatalog,
  type MysqlCatalogEntry,
  MysqlCatalogError,
  parseMysqlCatalog,
  toPositional,
} from './mysql-catalog.ts';
export { createMysqlPool, type MysqlPoolOptions } from './mysql-pool.ts';
