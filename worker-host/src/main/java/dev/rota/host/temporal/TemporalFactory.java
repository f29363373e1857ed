package dev.rota.host.temporal;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import dev.rota.host.DevDataFolder;
import dev.rota.host.StartupException;
import dev.rota.workflows.RotaSearchAttributes;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.temporal.authorization.AuthorizationTokenSupplier;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import jakarta.inject.Singleton;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Optional;

/** The connection to Temporal: the embedded server in dev mode, a real frontend otherwise. */
@Factory
public class TemporalFactory {

  /**
   * Dev mode's own server on 127.0.0.1: the real one from the Temporal CLI when one is found (or
   * required), else the Java test server in this process.
   */
  @Singleton
  @Requires(property = "rota.temporal.embedded", value = "true")
  @Bean(preDestroy = "close")
  LocalTemporalServer localTemporalServer(TemporalSettings settings, Optional<DevDataFolder> data) {
    Optional<Path> cli =
        settings.devServer().equals("embedded")
            ? Optional.empty()
            : TemporalCli.find(settings.cli(), System.getenv("PATH"));
    if (cli.isEmpty()) {
      if (settings.devServer().equals("cli")) {
        throw new StartupException(
            "ROTA_DEV_TEMPORAL=cli but no Temporal CLI was found (ROTA_TEMPORAL_CLI is not set and no 'temporal' "
                + "is on the PATH); '.ci/temporal install' installs one");
      }
      return EmbeddedTemporalServer.start(settings.port());
    }
    Path folder =
        data.map(DevDataFolder::path)
            .orElseThrow(() -> new StartupException("dev mode has no data folder (ROTA_DATA_DIR)"));
    return CliTemporalServer.start(
        cli.get(), settings.port(), settings.uiPortOrDefault(), folder, RotaSearchAttributes.ALL);
  }

  /**
   * Connected eagerly, so that an unreachable frontend fails the start instead of the first call.
   */
  @Singleton
  @Bean(preDestroy = "shutdown")
  WorkflowServiceStubs workflowServiceStubs(
      TemporalSettings settings, Optional<LocalTemporalServer> local, MeterRegistry meters) {
    // The SDK's client and worker meters (temporal_*), into the registry /metrics serves.
    Scope metrics =
        new RootScopeBuilder()
            .reporter(new MicrometerClientStatsReporter(meters))
            .reportEvery(com.uber.m3.util.Duration.ofSeconds(10));
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder().setMetricsScope(metrics);
    Optional<io.grpc.ManagedChannel> inProcess =
        local.flatMap(LocalTemporalServer::inProcessChannel);
    if (inProcess.isPresent()) {
      options.setChannel(inProcess.get());
    } else {
      options.setTarget(settings.target());
    }
    if (!settings.embedded()) {
      configureSecurity(settings, options);
    }
    try {
      return WorkflowServiceStubs.newConnectedServiceStubs(
          options.build(), settings.connectTimeout());
    } catch (RuntimeException e) {
      throw new StartupException(
          "cannot reach Temporal at "
              + settings.target()
              + " within "
              + settings.connectTimeout().toSeconds()
              + " s ("
              + StartupException.rootMessage(e)
              + "); check TEMPORAL_ADDRESS",
          e);
    }
  }

  @Singleton
  WorkflowClient workflowClient(WorkflowServiceStubs stubs, TemporalSettings settings) {
    return WorkflowClient.newInstance(
        stubs, WorkflowClientOptions.newBuilder().setNamespace(settings.namespace()).build());
  }

  private static void configureSecurity(
      TemporalSettings settings, WorkflowServiceStubsOptions.Builder options) {
    boolean mtls = TemporalSettings.isSet(settings.tlsCert());
    if (mtls != TemporalSettings.isSet(settings.tlsKey())) {
      throw new StartupException(
          "TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: set both or neither");
    }
    if (mtls) {
      try (InputStream cert = new FileInputStream(settings.tlsCert());
          InputStream key = new FileInputStream(settings.tlsKey())) {
        options.setSslContext(SimpleSslContextBuilder.forPKCS8(cert, key).build());
      } catch (IOException e) {
        throw new StartupException(
            "cannot read the Temporal client certificate (" + StartupException.rootMessage(e) + ")",
            e);
      }
    }
    if (TemporalSettings.isSet(settings.apiKey())) {
      String apiKey = settings.apiKey();
      AuthorizationTokenSupplier token = () -> apiKey;
      options.addApiKey(token);
      if (!mtls) {
        options.setEnableHttps(true);
      }
    }
  }
}
