// A suite's real Gateway and the bare client that drives it, started in `before` and stopped in
// `after`. With a scripted model, the model starts first and the Gateway runs it.
import { connectBareClient, type BareClient } from "./bare-client.ts";
import { startGateway, type TestGateway } from "./gateway.ts";
import type { ScriptedModel } from "./scripted-model.ts";

export type GatewayParts = { gw: TestGateway; client: BareClient };

export class GatewayRig {
  private model?: ScriptedModel;
  private gw?: TestGateway;
  private client?: BareClient;
  private readonly startModel: (() => Promise<ScriptedModel>) | undefined;
  private readonly tools: Record<string, unknown> | undefined;

  /**
   * `startModel` starts the model the Gateway's agent runtime calls (none: no agent runs);
   * `tools` adds to the Gateway's `tools` config (with a model only).
   */
  constructor(startModel?: () => Promise<ScriptedModel>, tools?: Record<string, unknown>) {
    this.startModel = startModel;
    this.tools = tools;
  }

  async start(): Promise<GatewayParts> {
    const model = this.startModel ? (this.model = await this.startModel()) : undefined;
    const gw = (this.gw = await startGateway(model ? { model, ...(this.tools ? { tools: this.tools } : {}) } : {}));
    const client = (this.client = await connectBareClient(gw));
    return { gw, client };
  }

  /** Stops whatever did start, even after a failed `start`. */
  async stop(): Promise<void> {
    await this.client?.close();
    await this.gw?.dispose();
    await this.model?.stop();
  }
}
