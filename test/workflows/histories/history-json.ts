/**
 * Temporal's JSON history format (proto3 JSON, what `temporal workflow show --output json` prints),
 * to and from the History protobuf the worker replays.
 *
 * Not through historyToJSON/historyFromJSON of @temporalio/common: in this install @temporalio/proto,
 * /common and /worker each get their own copy of protobufjs 8 (the hoisted one is grpc's protobufjs
 * 7), and those helpers mix common's copy with proto's types, so protobufjs's `instanceof Type`
 * check fails ("type must be a Type"). Here the JSON codec comes from the same protobufjs copy that
 * built @temporalio/proto's types.
 */
import { createRequire } from 'node:module';
import type * as Proto from '@temporalio/proto';
import type { patchProtobufRoot as PatchRoot } from '@temporalio/proto/lib/patch-protobuf-root';

type History = Proto.temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

const require = createRequire(import.meta.url);
// The CommonJS module itself (an ES namespace object is not the protobuf root patchProtobufRoot walks).
const proto = require('@temporalio/proto') as typeof Proto;
const { patchProtobufRoot } = require('@temporalio/proto/lib/patch-protobuf-root') as { patchProtobufRoot: typeof PatchRoot };
const fromProto = createRequire(require.resolve('@temporalio/proto'));
const protojson = fromProto('protobufjs/ext/protojson') as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

/** A history fetched from the server, as a JSON value. */
export function historyToJson(history: History): unknown {
  return protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));
}

/** A JSON history back to the protobuf message (fields of a newer server are ignored). */
export function historyFromJson(json: unknown): History {
  const h = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!h) throw new TypeError('not a Temporal history');
  return h as History;
}
