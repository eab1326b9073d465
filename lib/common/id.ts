import { ObjectId } from 'bson';

/** A 24-hex, time-ordered id: the contract's "database id" format, B-tree friendly as text. */
export function generateId(): string {
  return new ObjectId().toHexString();
}

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/** True when `value` is a 24-hex id. Every id parameter is checked with this before it reaches SQL. */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}
