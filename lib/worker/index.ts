export { createWorker, QUEUED_CHANNEL } from "./worker";
export { PermanentError, JobCancelled, LeaseLost, DrainTimeout } from "./errors";
export { DEFAULT_RETRY, backoffDelay, type BackoffOptions } from "./backoff";
export { consoleLogger, silentLogger } from "./log";
export type { Handlers, HandlerSpec, JobContext, JobHandler, JobOutcome, Logger, Worker, WorkerOptions } from "./types";
export type { ScheduleDeclaration } from "../schedules/schedules";
