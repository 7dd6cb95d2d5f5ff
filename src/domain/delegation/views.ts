import type { DELEGATION_STATUSES } from '../../model/delegation/vocabulary';
import type { DelegationRecord } from '../../store/delegation/records';

/** The record as the API shows it (the store's internal id and content hash stay inside). */
export const toRecordWire = (r: DelegationRecord) => {
  const { id: _id, content_hash: _h, ...rest } = r;
  return { ...rest, status: r.status as (typeof DELEGATION_STATUSES)[number] };
};
