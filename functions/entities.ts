/**
 * Every entity of the single table: importing this registers each store's key shapes and queries
 * (functions/data/key-registry.ts). The tests prove from it that no two entities can produce the
 * same key, and docs/access-patterns.md is written from it. A store that calls defineEntity is
 * listed here (a test holds that).
 */
import './accounts/account-store';
import './accounts/ip-allowlist';
import './accounts/monthly-limit';
import './accounts/sandbox-recipients';
import './accounts/user-store';
import './analytics/counter-store';
import './analytics/unique-marks';
import './credentials/credential-store';
import './delivery/claims';
import './domains/domain-store';
import './event-stream/process-batch';
import './events/event-store';
import './inbound/action-worker';
import './inspect/common/inspect-store';
import './inspect/preview/export-store';
import './inspect/preview/preview-address';
import './inspect/preview/preview-store';
import './inspect/preview/share-store';
import './keys/key-store';
import './lists/list-store';
import './mailroutes/route-store';
import './messages/message-store';
import './optimize/alerts/history';
import './optimize/alerts/settings-store';
import './optimize/blocklists/confirmations';
import './optimize/blocklists/events';
import './optimize/blocklists/subjects';
import './optimize/dmarc/report-store';
import './optimize/domains/managed-domains';
import './optimize/inbox/results';
import './optimize/inbox/seed-lists';
import './optimize/inbox/seed-mailboxes';
import './optimize/inbox/target-mail';
import './optimize/postmaster/postmaster-store';
import './optimize/spamtraps/recycled';
import './platform/auth-throttle';
import './reputation/guard-store';
import './sending-ips/dynamic-pools';
import './sending-ips/ip-records';
import './sending-ips/pool-records';
import './sending-ips/warmup';
import './suppressions/suppression-store';
import './tags/tag-store';
import './templates/template-store';
import './webhooks/delivery-worker';
import './webhooks/failed-deliveries';
import './webhooks/signing-key';
import './webhooks/webhook-store';

export { accessPatternTable, keyCollisions, queryIntrusions, registeredItems, registeredQueries } from './data/key-registry';
