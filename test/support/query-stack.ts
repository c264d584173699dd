// The data path of the service without a transport: registry, parameter
// binding, executor and row messages over a real embedded warehouse.
import { create, type Message } from "@bufbuild/protobuf";
import { createEndpointRegistry, createEndpointService, savedQueryServices } from "../../src/endpoints/index.js";
import { createQueryExecutor, type QueryExecutorOptions } from "../../src/executor/index.js";
import { fixedClock } from "../../src/observability/index.js";
import type { Warehouse } from "../../src/warehouse/index.js";
import { afterAll, beforeAll } from "vitest";
import { openTestWarehouse } from "./embedded-warehouse.js";

export function createQueryStack(warehouse: Warehouse, now: number, tuning?: QueryExecutorOptions["tuning"]) {
  const clock = fixedClock(now);
  const registry = createEndpointRegistry({ services: savedQueryServices });
  const executor = createQueryExecutor({ client: warehouse.client, clock, tuning });
  // The service's clock too: it decides whether a deprecated version is past its sunset.
  const service = createEndpointService({ executor, clock });
  /** Runs the endpoint `name` with `params` as its request fields; returns the rows. */
  async function run<Row extends Message = Message>(name: string, params: Record<string, string>): Promise<Row[]> {
    const endpoint = registry.find(name);
    if (endpoint === undefined) throw new Error(`no endpoint ${name}`);
    const request = create(endpoint.method.input, fieldsByLocalName(endpoint.method.input.fields, params) as never);
    const result = await service.run(endpoint, request);
    return (result.message() as unknown as { result: Row[] }).result;
  }
  return { clock, registry, executor, service, run };
}

function fieldsByLocalName(fields: readonly { name: string; localName: string }[], params: Record<string, string>) {
  const init: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    const field = fields.find((f) => f.name === name);
    if (field === undefined) throw new Error(`no parameter ${name}`);
    init[field.localName] = value;
  }
  return init;
}

/**
 * Opens a migrated embedded warehouse before the file's tests and closes it
 * after; returns accessors for the warehouse and a query stack at `now`.
 */
export function useQueryStack(now: number) {
  let warehouse: Warehouse | undefined;
  let stack: ReturnType<typeof createQueryStack> | undefined;
  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    stack = createQueryStack(warehouse, now);
  });
  afterAll(async () => warehouse?.close());
  return { warehouse: () => warehouse!, stack: () => stack! };
}
