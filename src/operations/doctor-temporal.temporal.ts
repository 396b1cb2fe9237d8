/** `email-rag doctor`'s questions to Temporal: the namespace, its search attributes, the schedules. */
import { ScheduleNotFoundError } from '@temporalio/client';
import type { Config } from '../platform/config';
import { connectTemporal } from '../platform/cli-context';
import { scheduleMatches, wantedSchedules } from './schedules';
import { listSearchAttributes } from './search-attributes.temporal';
import type { DoctorScheduleState, DoctorTemporal } from './doctor.port';

/** Connects (within seconds) and asks the server who it is; throws the CLI's one-line error when it does not answer. */
export async function openDoctorTemporal(config: Config): Promise<{ temporal: DoctorTemporal; close(): Promise<void> }> {
  const { client, close } = await connectTemporal(config);
  const { namespace, address } = config.temporal;
  const doctor: DoctorTemporal = {
    async namespace() {
      const d = await client.workflowService.describeNamespace({ namespace });
      const seconds = d.config?.workflowExecutionRetentionTtl?.seconds;
      return { address, namespace, retentionDays: seconds == null ? null : Number(seconds) / 86_400 };
    },
    searchAttributes: () => listSearchAttributes(client.connection, namespace),
    async schedules() {
      return Promise.all(
        wantedSchedules(config).map(async (s): Promise<{ id: string; state: DoctorScheduleState }> => {
          try {
            const d = await client.schedule.getHandle(s.id).describe();
            if (!scheduleMatches(d, config, s)) return { id: s.id, state: 'differs' };
            return { id: s.id, state: d.state.paused ? 'paused' : 'installed' };
          } catch (err) {
            if (err instanceof ScheduleNotFoundError) return { id: s.id, state: 'missing' };
            throw err;
          }
        }),
      );
    },
  };
  return { temporal: doctor, close };
}
