import { call } from '../api';
import { credentials } from '../session';
import { formatDate, Head } from '../ui/widgets';
import { alertEventName } from '../ui/alert-event-names';

/** A listing or delisting of a monitored IP or domain: what blocklist alerts are raised for. */
export interface BlocklistEvent {
  timestamp: string;
  event: string;
  subject: string;
  list: string;
}

/** The latest IP events (50) and domain events (`domainLimit`), newest first, as one list. */
export async function loadBlocklistEvents(signal: AbortSignal, domainLimit: number): Promise<BlocklistEvent[]> {
  const [ips, domains] = await Promise.all([
    call<{ items: Array<{ ip: string; timestamp: string; event: string; blocklist: string }> }>(credentials(), 'GET', '/v1/blocklist-monitoring/events', { query: { limit: 50 }, signal }),
    call<{ events: Array<{ domain: string; timestamp: string; event: string; name: string }> }>(credentials(), 'GET', '/v1/monitoring/domains/events', { query: { limit: domainLimit }, signal }),
  ]);
  const all: BlocklistEvent[] = [
    ...ips.items.map((e) => ({ timestamp: e.timestamp, event: e.event, subject: e.ip, list: e.blocklist })),
    ...domains.events.map((e) => ({ timestamp: e.timestamp, event: e.event, subject: e.domain, list: e.name })),
  ];
  return all.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
}

/** The events as a table, newest first. */
export function BlocklistEventsTable({ events, caption, empty }: { events: BlocklistEvent[]; caption: string; empty: string }) {
  return (
    <div class="table-wrap" tabIndex={0}>
      <table>
        <caption class="muted">{caption}</caption>
        <Head columns={['Time', 'Event', 'IP or domain', 'List']} />
        <tbody>
          {events.map((e, i) => (
            <tr key={i}>
              <td>{formatDate(e.timestamp)}</td>
              <td title={e.event}>{alertEventName(e.event)}</td>
              <td class="break">{e.subject}</td>
              <td>{e.list}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!events.length ? <p class="muted">{empty}</p> : null}
    </div>
  );
}
