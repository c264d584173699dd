// gRPC server reflection (v1 and v1alpha) over the generated descriptors: the services, and a file, a symbol's or an
// extension's file, each with its dependencies; a stream bounded as many calls would be.
import {
  create,
  createRegistry,
  fromBinary,
  toBinary,
  type DescFile,
  type DescService,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";
import {
  ServerReflection as ServerReflectionV1Alpha,
  ServerReflectionRequestSchema as RequestV1AlphaSchema,
  ServerReflectionResponseSchema as ResponseV1AlphaSchema,
} from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { callOf } from "../rpc/index.js";

/** The reflection services themselves, both versions. */
export const serverReflectionServices: readonly DescService[] = [ServerReflection, ServerReflectionV1Alpha];

export interface ServerReflectionOptions {
  /** The services listed, in order (the reflection services added); their files and dependencies can be sent. */
  services: readonly DescService[];
  /** Takes a token of a client address's reflection bucket per message after the first (the gate took one). */
  limit?: { takeToken?: (address: string) => void };
}

/** Request messages one reflection stream may send. */
const maxMessages = 100;

/** The requests of one stream, ended with RESOURCE_EXHAUSTED when the stream is past its bound. */
async function* boundedRequests<T>(
  requests: AsyncIterable<T>,
  context: HandlerContext,
  takeToken?: (a: string) => void,
) {
  const address = callOf(context.values)?.clientAddress ?? "";
  let seen = 0;
  for await (const request of requests) {
    seen += 1;
    const message = `a reflection stream takes at most ${maxMessages} requests, open another`;
    if (seen > maxMessages) throw new ConnectError(message, Code.ResourceExhausted);
    if (seen > 1) takeToken?.(address);
    yield request;
  }
}

/** Answers one reflection request; `sent` holds the files already sent on this stream. */
type ReflectionAnswer = (request: ServerReflectionRequest, sent: Set<string>) => ServerReflectionResponse;

/** Registers both reflection versions on a Connect router (bidirectional streams, so gRPC over HTTP/2). */
export function createServerReflection(options: ServerReflectionOptions): (router: ConnectRouter) => void {
  const answer = createReflectionAnswer(options);
  const takeToken = options.limit?.takeToken;
  return (router) => {
    router.service(ServerReflection, {
      async *serverReflectionInfo(requests, context) {
        const sent = new Set<string>();
        for await (const request of boundedRequests(requests, context, takeToken)) yield answer(request, sent);
      },
    });
    // v1alpha has the same messages under another package: the same bytes on the wire.
    router.service(ServerReflectionV1Alpha, {
      async *serverReflectionInfo(requests, context) {
        const sent = new Set<string>();
        for await (const request of boundedRequests(requests, context, takeToken)) {
          const v1 = fromBinary(ServerReflectionRequestSchema, toBinary(RequestV1AlphaSchema, request));
          const bytes = toBinary(ServerReflectionResponseSchema, answer(v1, sent));
          yield fromBinary(ResponseV1AlphaSchema, bytes);
        }
      },
    });
  };
}

/** The request-to-response logic of reflection, without the stream. */
function createReflectionAnswer(options: ServerReflectionOptions): ReflectionAnswer {
  const services = [...options.services];
  for (const service of serverReflectionServices) if (!services.includes(service)) services.push(service);
  const files = new Map<string, DescFile>();
  const addFile = (file: DescFile): void => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const dependency of file.dependencies) addFile(dependency);
  };
  for (const service of services) addFile(service.file);
  const types = createRegistry(...files.values());
  // Each file is encoded once: every answer that sends it sends the same bytes.
  const encoded = new Map<string, Uint8Array>();
  const bytesOf = (file: DescFile): Uint8Array => {
    let bytes = encoded.get(file.proto.name);
    if (bytes === undefined) encoded.set(file.proto.name, (bytes = toBinary(FileDescriptorProtoSchema, file.proto)));
    return bytes;
  };
  const listed = services.map((s) => ({ name: s.typeName }));

  /** The file and those of its dependencies not yet sent on this stream, the file first. */
  function withDependencies(file: DescFile, sent: Set<string>): Uint8Array[] {
    const out: Uint8Array[] = [];
    const visit = (f: DescFile, requested: boolean) => {
      if (!requested && sent.has(f.proto.name)) return;
      sent.add(f.proto.name);
      out.push(bytesOf(f));
      for (const dependency of f.dependencies) visit(dependency, false);
    };
    visit(file, true);
    return out;
  }

  function fileOfSymbol(symbol: string): DescFile | undefined {
    const found = types.get(symbol);
    if (found !== undefined) return found.file;
    // A method (`pkg.Service.Method`) is declared by its service's file.
    const dot = symbol.lastIndexOf(".");
    const service = dot < 0 ? undefined : types.getService(symbol.slice(0, dot));
    return service?.methods.some((m) => m.name === symbol.slice(dot + 1)) ? service.file : undefined;
  }

  return (request, sent) => create(ServerReflectionResponseSchema, respond(request, sent));

  function respond(
    request: ServerReflectionRequest,
    sent: Set<string>,
  ): MessageInitShape<typeof ServerReflectionResponseSchema> {
    const base = { validHost: request.host, originalRequest: request };
    const fileResponse = (file: DescFile) => ({
      ...base,
      messageResponse: {
        case: "fileDescriptorResponse" as const,
        value: { fileDescriptorProto: withDependencies(file, sent) },
      },
    });
    const failed = (errorCode: Code, errorMessage: string) => ({
      ...base,
      messageResponse: { case: "errorResponse" as const, value: { errorCode, errorMessage } },
    });
    const notFound = (message: string) => failed(Code.NotFound, message);
    const asked = request.messageRequest;
    switch (asked.case) {
      case "listServices":
        return { ...base, messageResponse: { case: "listServicesResponse", value: { service: listed } } };
      case "fileByFilename": {
        const file = files.get(asked.value);
        return file === undefined ? notFound(`file_by_filename: no file named ${asked.value}`) : fileResponse(file);
      }
      case "fileContainingSymbol": {
        const file = fileOfSymbol(asked.value);
        return file === undefined
          ? notFound(`file_containing_symbol: no symbol named ${asked.value}`)
          : fileResponse(file);
      }
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = asked.value;
        const extendee = types.getMessage(containingType);
        const extension = extendee === undefined ? undefined : types.getExtensionFor(extendee, extensionNumber);
        return extension === undefined
          ? notFound(`file_containing_extension: no extension ${extensionNumber} of ${containingType}`)
          : fileResponse(extension.file);
      }
      case "allExtensionNumbersOfType": {
        if (types.getMessage(asked.value) === undefined)
          return notFound(`all_extension_numbers_of_type: no message type named ${asked.value}`);
        const numbers: number[] = [];
        for (const desc of types)
          if (desc.kind === "extension" && desc.extendee.typeName === asked.value) numbers.push(desc.number);
        return {
          ...base,
          messageResponse: {
            case: "allExtensionNumbersResponse",
            value: { baseTypeName: asked.value, extensionNumber: numbers.sort((a, b) => a - b) },
          },
        };
      }
      default:
        return failed(Code.InvalidArgument, "message_request must be set");
    }
  }
}
