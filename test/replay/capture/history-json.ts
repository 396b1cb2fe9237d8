/**
 * History <-> the JSON that `temporal workflow show --output json` and the Web UI export write.
 *
 * `historyToJSON` / `historyFromJSON` of @temporalio/common 1.24.0 fail with "type must be a Type"
 * when npm installs separate copies of protobufjs 8 under @temporalio/common and @temporalio/proto
 * (it does here: the top-level protobufjs is 7.x for @grpc/proto-loader), because the History type
 * comes from one copy and the JSON codec from the other. The fallback uses the codec of the copy
 * that built the types; the SDK's own functions are used whenever they work.
 */
import { createRequire } from 'node:module';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

let codec: { protojson: ProtoJson; historyType: unknown } | undefined;

function sameCopyCodec(): { protojson: ProtoJson; historyType: unknown } {
  if (!codec) {
    const fromProto = createRequire(require.resolve('@temporalio/proto'));
    const protojson = fromProto('protobufjs/ext/protojson') as ProtoJson;
    const root = patchProtobufRoot(proto as unknown as Record<string, unknown>) as unknown as { lookupType(name: string): unknown };
    codec = { protojson, historyType: root.lookupType('temporal.api.history.v1.History') };
  }
  return codec;
}

function isCopyMismatch(err: unknown): boolean {
  return err instanceof TypeError && /must be a Type/.test(err.message);
}

/** The history as a plain JSON object (enum names, string event ids, base64 payloads). */
export function historyToJson(history: History): Record<string, unknown> {
  try {
    return JSON.parse(historyToJSON(history)) as Record<string, unknown>;
  } catch (err) {
    if (!isCopyMismatch(err)) throw err;
    const { protojson, historyType } = sameCopyCodec();
    return protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)) as Record<string, unknown>;
  }
}

/** A History the replayer takes, from JSON written by historyToJson or the temporal CLI. */
export function historyFromJson(json: unknown): History {
  try {
    return historyFromJSON(json);
  } catch (err) {
    if (!isCopyMismatch(err)) throw err;
    const { protojson, historyType } = sameCopyCodec();
    const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
    if (!history) throw new TypeError('invalid history JSON');
    return history as History;
  }
}
