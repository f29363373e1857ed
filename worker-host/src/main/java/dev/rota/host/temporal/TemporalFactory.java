package dev.rota.host.temporal;

import dev.rota.host.StartupException;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.temporal.authorization.AuthorizationTokenSupplier;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import jakarta.inject.Singleton;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/** The connection to Temporal: the embedded server in dev mode, a real frontend otherwise. */
@Factory
public class TemporalFactory {

  @Singleton
  @Requires(property = "rota.temporal.embedded", value = "true")
  @Bean(preDestroy = "close")
  EmbeddedTemporalServer embeddedTemporalServer(TemporalSettings settings) {
    return EmbeddedTemporalServer.start(settings.port());
  }

  /** Connected eagerly, so that an unreachable frontend fails the start instead of the first call. */
  @Singleton
  @Bean(preDestroy = "shutdown")
  WorkflowServiceStubs workflowServiceStubs(
      TemporalSettings settings, Optional<EmbeddedTemporalServer> embedded) {
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder().setTarget(settings.target());
    if (!settings.embedded()) {
      configureSecurity(settings, options);
    }
    try {
      return WorkflowServiceStubs.newConnectedServiceStubs(options.build(), settings.connectTimeout());
    } catch (RuntimeException e) {
      throw new StartupException(
          "cannot reach Temporal at " + settings.target() + " within " + settings.connectTimeout().toSeconds()
              + " s (" + StartupException.rootMessage(e) + "); check TEMPORAL_ADDRESS",
          e);
    }
  }

  @Singleton
  WorkflowClient workflowClient(WorkflowServiceStubs stubs, TemporalSettings settings) {
    return WorkflowClient.newInstance(
        stubs, WorkflowClientOptions.newBuilder().setNamespace(settings.namespace()).build());
  }

  private static void configureSecurity(TemporalSettings settings, WorkflowServiceStubsOptions.Builder options) {
    boolean mtls = TemporalSettings.isSet(settings.tlsCert());
    if (mtls != TemporalSettings.isSet(settings.tlsKey())) {
      throw new StartupException("TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: set both or neither");
    }
    if (mtls) {
      try (InputStream cert = new FileInputStream(settings.tlsCert());
          InputStream key = new FileInputStream(settings.tlsKey())) {
        options.setSslContext(SimpleSslContextBuilder.forPKCS8(cert, key).build());
      } catch (IOException e) {
        throw new StartupException(
            "cannot read the Temporal client certificate (" + StartupException.rootMessage(e) + ")", e);
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
