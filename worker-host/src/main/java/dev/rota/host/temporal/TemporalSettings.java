package dev.rota.host.temporal;

import dev.rota.scheduler.settings.SettingRule;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;
import java.util.List;

/**
 * {@code rota.temporal.*}: where the host finds Temporal.
 *
 * @param embedded run Temporal's Java test server in this process (dev mode) instead of connecting
 * @param port the embedded server's port on 127.0.0.1 ({@code ROTA_TEMPORAL_PORT})
 * @param address host:port of a real Temporal frontend ({@code TEMPORAL_ADDRESS})
 * @param namespace the Temporal namespace ({@code TEMPORAL_NAMESPACE})
 * @param tlsCert PEM client certificate for mTLS, e.g. Temporal Cloud ({@code TEMPORAL_TLS_CERT})
 * @param tlsKey PKCS#8 PEM key of that certificate ({@code TEMPORAL_TLS_KEY})
 * @param apiKey an API key, sent over TLS ({@code TEMPORAL_API_KEY})
 * @param connectTimeout how long start-up waits for the frontend to answer
 * @param virtualWorkflowThreads run workflow threads as virtual threads (needs JDK 21+)
 * @param devServer which server dev mode runs: {@code cli} (the real one, from the Temporal CLI),
 *     {@code embedded} (the Java test server), or {@code auto}: the CLI when one is found ({@code
 *     ROTA_DEV_TEMPORAL})
 * @param cli the Temporal CLI to run; by default {@code temporal} on the PATH ({@code
 *     ROTA_TEMPORAL_CLI})
 * @param uiPort the CLI dev server's Web UI port; 0 means {@code port + 1000} ({@code
 *     ROTA_TEMPORAL_UI_PORT})
 * @param stickyTimeout how long a workflow task waits for the host that ran the workflow last (its
 *     cache) before any host may take it: what a host that died costs each of its workflows
 * @param workflowCacheSize how many workflows a host keeps in memory between their tasks, each on a
 *     thread of its own; a workflow not kept is replayed from its history for its next task
 * @param workflowTaskSlots how many VM and VM-set workflow tasks a host runs at once; 0: twice its
 *     cores ({@link #workflowTaskSlotsOrDefault()})
 */
@ConfigurationProperties("rota.temporal")
public record TemporalSettings(
    @Bindable(defaultValue = "false") boolean embedded,
    @Bindable(defaultValue = "7233") int port,
    @Bindable(defaultValue = "127.0.0.1:7233") String address,
    @Bindable(defaultValue = "default") String namespace,
    @Nullable String tlsCert,
    @Nullable String tlsKey,
    @Nullable String apiKey,
    @Bindable(defaultValue = "10s") Duration connectTimeout,
    @Bindable(defaultValue = "false") boolean virtualWorkflowThreads,
    @Bindable(defaultValue = "auto") String devServer,
    @Nullable String cli,
    @Bindable(defaultValue = "0") int uiPort,
    @Bindable(defaultValue = "2s") Duration stickyTimeout,
    @Bindable(defaultValue = "600") int workflowCacheSize,
    @Bindable(defaultValue = "0") int workflowTaskSlots) {

  public static final List<SettingRule<?>> RULES =
      List.of(
          SettingRule.port("rota.temporal.port"),
          SettingRule.positiveDuration("rota.temporal.connect-timeout"),
          SettingRule.positiveDuration("rota.temporal.sticky-timeout"),
          new SettingRule<>(
              "rota.temporal.workflow-cache-size",
              Integer.class,
              n -> n > 0,
              "must be a positive number of workflows"),
          new SettingRule<>(
              "rota.temporal.workflow-task-slots",
              Integer.class,
              n -> n == 0 || n >= 2,
              "must be at least 2 workflow tasks at once, the SDK's least (0: twice the host's cores)"),
          new SettingRule<>(
              "rota.temporal.ui-port",
              Integer.class,
              p -> p >= 0 && p < 65536,
              "must be a port number from 1 to 65535 (0: ROTA_TEMPORAL_PORT + 1000)"),
          new SettingRule<>(
              "rota.temporal.dev-server",
              String.class,
              v -> List.of("auto", "embedded", "cli").contains(v),
              "must be auto, embedded or cli"));

  /**
   * A VM's workflow task is CPU work, and a VM runs without waiting for it (its row says running on
   * its agent's report): more tasks at once than the cores can run only take CPU from the API, the
   * scheduler and the calls to agents that a VM's running waits for. Under heavy load a few per
   * core brought a burst to running sooner than the SDK's 200, and the workflows caught up sooner
   * too.
   */
  public int workflowTaskSlotsOrDefault() {
    return workflowTaskSlots > 0
        ? workflowTaskSlots
        : 2 * Runtime.getRuntime().availableProcessors();
  }

  /** The Web UI's port when dev mode runs the CLI's server. */
  public int uiPortOrDefault() {
    return uiPort > 0 ? uiPort : port + 1000;
  }

  /** The address clients dial: the embedded server's when embedded. */
  public String target() {
    return embedded ? "127.0.0.1:" + port : address;
  }

  static boolean isSet(String value) {
    return value != null && !value.isBlank();
  }
}
