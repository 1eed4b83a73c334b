import https from 'node:https';
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';

/**
 * A KubeConfig whose API calls share one keep-alive HTTPS agent. @kubernetes/client-node 1.x
 * builds a new agent for every request, so each call pays a TCP and TLS handshake; measured on
 * the local stack, 300 calls 32 at a time took 2.4–3.6 s that way and 1.1–1.3 s with one agent.
 * The agent keeps the options (CA, client certificate) of the first request; tokens travel in
 * headers and are still applied per request.
 */
export class KeepAliveKubeConfig extends KubeConfig {
  private shared?: https.Agent;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const fresh = context.getAgent();
    if (!(fresh instanceof https.Agent)) return; // proxies and plain HTTP keep their own agent
    this.shared ??= new https.Agent({ ...fresh.options, keepAlive: true });
    context.setAgent(this.shared);
  }
}
