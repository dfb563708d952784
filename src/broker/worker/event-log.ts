// What a Worker tells its logger about its events (the events are emitted either way).
import type { Logger } from '../../logger.js';
import type { WorkerEvents } from './events.js';

export function logWorkerEvent<T, K extends keyof WorkerEvents<T>>(logger: Logger, consumer: string, event: K, args: WorkerEvents<T>[K]): void {
  const a = args as unknown[];
  const job = a[0] as { id: string; stream: string; deliveries: number } | undefined;
  switch (event) {
    case 'error':
      logger.error(`sluice worker ${consumer}: ${(a[0] as Error).message}`, a[0]);
      break;
    case 'deadLettered':
      logger.warn(`sluice worker ${consumer}: ${job!.stream} ${job!.id} dead-lettered after ${job!.deliveries} deliveries: ${(a[1] as Error).message}`);
      break;
    case 'failed':
      logger.debug(`sluice worker ${consumer}: ${job!.stream} ${job!.id} failed (delivery ${job!.deliveries}): ${(a[1] as Error).message}`);
      break;
    case 'retrying':
      logger.debug(`sluice worker ${consumer}: ${job!.stream} ${job!.id} retried in ${a[1] as number} ms`);
      break;
    case 'leaseLost':
      logger.warn(`sluice worker ${consumer}: ${job!.stream} ${job!.id} was claimed by another consumer while running`);
      break;
    default:
      break;
  }
}
