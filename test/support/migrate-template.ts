// Makes the template data directory the test warehouses are copied from
// (embedded-warehouse.ts): the engine opened in the directory given,
// migrated as openTestWarehouse migrates, and closed. Run as a process of its
// own by the tests' global setup (warehouse-template.ts), since libchdb binds
// one data directory per process.
import { migrate, openWarehouse } from "../../src/warehouse/index.js";

const warehouse = await openWarehouse({ kind: "embedded", path: process.argv[2]!, database: "default" });
await migrate(warehouse.client);
await warehouse.close();
