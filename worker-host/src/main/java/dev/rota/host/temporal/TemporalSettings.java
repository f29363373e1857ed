package dev.rota.host.temporal;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import dev.rota.settings.SettingRule;
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
    @Bindable(defaultValue = "false") boolean virtualWorkflowThreads) {

  public static final List<SettingRule<?>> RULES =
      List.of(SettingRule.port("rota.temporal.port"), SettingRule.positiveDuration("rota.temporal.connect-timeout"));

  /** The address clients dial: the embedded server's when embedded. */
  public String target() {
    return embedded ? "127.0.0.1:" + port : address;
  }

  static boolean isSet(String value) {
    return value != null && !value.isBlank();
  }
}
