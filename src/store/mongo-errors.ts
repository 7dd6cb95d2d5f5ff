import { MongoServerError } from 'mongodb';

/** A unique index already holds the key (MongoDB error 11000). */
export const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;
