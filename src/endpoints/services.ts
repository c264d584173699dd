// The Protobuf services whose methods are the saved queries. Adding a saved
// query is adding a method here (and its sql/<name>.sql); nothing else lists them.
import type { DescService } from "@bufbuild/protobuf";
import { CallsService } from "../gen/calls/v1/calls_pb.js";
import { FunctionsService } from "../gen/functions/v1/functions_pb.js";
import { LogsService } from "../gen/logs/v1/logs_pb.js";
import { UsageService } from "../gen/usage/v1/usage_pb.js";

export const savedQueryServices: readonly DescService[] = [FunctionsService, UsageService, LogsService, CallsService];
