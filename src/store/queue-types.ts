/** What the job queue hands out and reports, shared by the queue and the statements on its table. */

/** Where jobs go after their last attempt; one for all queues, each entry remembers its source. */
export const DEAD_LETTER_QUEUE = 'dead_letter';

/** Every job is about one CRM record; erasure finds jobs by these fields. */
export interface RecordRef {
  connection: string;
  objectType: string;
  recordId: string;
}

export interface ClaimedJob<T extends RecordRef = RecordRef> {
  id: string;
  queue: string;
  data: T;
  /** 1 on the first attempt. */
  attempt: number;
  retryCount: number;
  priority: number;
  createdAt: Date;
}

export interface DeadLetter<T extends RecordRef = RecordRef> {
  id: string;
  queue: string;
  data: T;
  error: unknown;
  /** Why it was parked: every attempt failed, or an error no retry can fix, with the error's code. */
  parkedReason: string;
  attempts: number;
  firstQueuedAt: Date | null;
  deadAt: Date;
}

/** A job that failed at least once and waits for its next attempt. */
export interface RetryingJob<T extends RecordRef = RecordRef> {
  id: string;
  queue: string;
  data: T;
  /** The error the last attempt met. */
  error: unknown;
  failedAttempts: number;
  attemptsLeft: number;
  nextAttemptAt: Date;
  firstQueuedAt: Date;
}

export interface QueueCounts {
  queue: string;
  created: number;
  retry: number;
  active: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** Jobs waiting to run: created plus retry. */
  depth: number;
}
