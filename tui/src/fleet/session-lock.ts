/**
 * One job at a time per session, in the order the jobs were submitted. A session is a conversation:
 * two runs on it at once would interleave their messages, and a job continuing it must see what
 * the previous job did. BullMQ knows nothing of sessions, so the worker keeps, in Redis beside the
 * queue, each session's waiting jobs (a sorted set scored by the job's submission time) and a
 * lease on the session (a key with a time to live, renewed while the job runs). A job runs when it
 * is first in its session's line and holds the lease; a worker that dies stops renewing, so the
 * lease ends with it and the next attempt (or job) goes on.
 */
import { randomUUID } from 'node:crypto';
import type { RedisCommands } from './redis.ts';

/** Deletes the lease only while it is still ours. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** Extends the lease only while it is still ours; 0 when it was lost. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export interface Lease {
  /** False once a renewal found the lease gone (the job must stop before it writes again). */
  readonly held: boolean;
  /** Gives the session up; with `done`, the job leaves the session's line too. */
  release(done: boolean): Promise<void>;
}

export class SessionLocks {
  readonly #redis: RedisCommands;
  readonly #prefix: string;
  readonly #ttlMs: number;

  /** `prefix`: the queue's key prefix, so two queues on one Redis do not share leases. */
  constructor(redis: RedisCommands, prefix: string, ttlMs: number) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#ttlMs = ttlMs;
  }

  /**
   * The session's lease for `jobId`, when it is the job's turn and no one holds it; undefined when
   * the job must wait. `stillQueued` says whether a job ahead in line can still run (a job that
   * completed or failed for good without leaving the line must not block it forever).
   */
  async acquire(
    sessionId: string,
    jobId: string,
    submittedAt: number,
    stillQueued: (jobId: string) => Promise<boolean>,
  ): Promise<Lease | undefined> {
    const order = `${this.#prefix}:order:${sessionId}`;
    await this.#redis.send(['ZADD', order, 'NX', String(submittedAt), jobId]);
    for (;;) {
      const head = (await this.#redis.send(['ZRANGE', order, '0', '0'])) as string[];
      const first = head[0];
      if (first === undefined || first === jobId) break;
      if (await stillQueued(first)) return undefined;
      await this.#redis.send(['ZREM', order, first]);
    }
    const key = `${this.#prefix}:lease:${sessionId}`;
    const token = `${jobId}:${randomUUID()}`;
    const set = await this.#redis.send(['SET', key, token, 'NX', 'PX', String(this.#ttlMs)]);
    if (set !== 'OK') return undefined;
    return this.#lease(key, order, jobId, token);
  }

  #lease(key: string, order: string, jobId: string, token: string): Lease {
    let held = true;
    const redis = this.#redis;
    const timer = setInterval(
      () => {
        redis.send(['EVAL', RENEW, '1', key, token, String(this.#ttlMs)]).then(
          (renewed) => {
            if (renewed === 0) held = false;
          },
          // Redis away for a moment: the next renewal tries again; the lease lasts a whole ttl.
          () => {},
        );
      },
      Math.max(100, Math.floor(this.#ttlMs / 3)),
    );
    timer.unref();
    return {
      get held() {
        return held;
      },
      async release(done) {
        clearInterval(timer);
        await redis.send(['EVAL', RELEASE, '1', key, token]).catch(() => {});
        if (done) await redis.send(['ZREM', order, jobId]).catch(() => {});
      },
    };
  }
}
