/** One region the console can talk to: its id (us, eu), its label and its API's base URL. */
export interface RegionConfig {
  id: string;
  label: string;
  api: string;
}

/**
 * What the host serving the console tells it (`console/config.json` beside the page): the region
 * it is in, every region's API, and whether local mode's Outbox is there. Public facts only.
 */
export interface ConsoleConfig {
  region: string;
  regions: RegionConfig[];
  outbox: boolean;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch(new URL('console/config.json', document.baseURI), { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`The console's configuration could not be read (HTTP ${res.status})`);
  const config = (await res.json()) as ConsoleConfig;
  if (!config.regions?.length) throw new Error("The console's configuration names no region");
  return config;
}
