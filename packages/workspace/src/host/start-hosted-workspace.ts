import { type RunningWorkspace, type StartWorkspaceOptions, startWorkspace } from '../start-workspace.js';
import { AppHost, type AppHostOptions } from './app-host.js';
import { hostRouter } from './host-router.js';
import { SecretBox } from './secret-box.js';

export interface StartHostedWorkspaceOptions extends Omit<StartWorkspaceOptions, 'extend'> {
  /** encrypts stored accounts; default from WEFT_SECRET_KEY or a key file in `keyDir` */
  box?: SecretBox;
  /** where a generated key file lives (the data directory); without it and WEFT_SECRET_KEY the key lives in memory */
  keyDir?: string;
  /** where apps reach this workspace; default its own URL */
  publicUrl?: string;
  host?: string;
  hostOptions?: Omit<AppHostOptions, 'box' | 'publicUrl' | 'log'>;
}

export interface HostedWorkspace extends RunningWorkspace {
  readonly apps: AppHost;
}

/** The workspace with its app host: the data API plus sources, syncs and app webhooks. */
export async function startHostedWorkspace(
  options: StartHostedWorkspaceOptions = {},
): Promise<HostedWorkspace> {
  let url = options.publicUrl ?? '';
  let apps: AppHost | undefined;
  const { box: given, keyDir, publicUrl: _p, hostOptions, ...rest } = options;
  // One key seals both the sources' accounts and the automations' app accounts.
  const box = given ?? SecretBox.fromEnv(process.env, keyDir);
  const running = await startWorkspace({
    ...rest,
    box,
    extend: async (workspace) => {
      apps = await AppHost.open(workspace, {
        box,
        publicUrl: () => url,
        ...(options.log ? { log: options.log } : {}),
        ...hostOptions,
      });
      const host = apps;
      return { router: hostRouter(host), close: () => host.close() };
    },
  });
  if (!url) url = running.url;
  return Object.assign(running, { apps: apps as AppHost }) as HostedWorkspace;
}
