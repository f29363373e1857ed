package dev.rota.host;

import dev.rota.agentapi.RotaBuild;

/** The few lines a started host prints: where its API, Temporal and data are. */
final class Banner {
  private Banner() {}

  static String of(RotaHost host) {
    StringBuilder b = new StringBuilder();
    if (host.mode() == HostMode.DEV) {
      b.append("Rota ")
          .append(RotaBuild.current().described())
          .append(" dev mode: ")
          .append(host.authEnabled() ? "auth ON" : "auth off")
          .append(", listening on loopback only\n");
      b.append("  API       ").append(host.apiUri()).append('\n');
      var temporal = host.localTemporal().orElseThrow();
      b.append("  Temporal  ")
          .append(host.temporalTarget())
          .append(" (namespace ")
          .append(host.namespace())
          .append("; ")
          .append(temporal.description())
          .append(")\n");
      temporal
          .webUi()
          .ifPresent(
              ui ->
                  b.append("  Web UI    ")
                      .append(ui)
                      .append("/namespaces/")
                      .append(host.namespace())
                      .append("/workflows\n"));
      b.append("  Data      ").append(host.dataDir().orElseThrow()).append('\n');
      for (var agent : host.devAgents()) {
        b.append("  Agent     ")
            .append(agent.name())
            .append(" on ")
            .append(agent.endpoint())
            .append('\n');
      }
    } else {
      b.append("Rota host ").append(RotaBuild.current().described()).append('\n');
      b.append("  API       ").append(host.apiUri()).append('\n');
      b.append("  Temporal  ")
          .append(host.temporalTarget())
          .append(" (namespace ")
          .append(host.namespace())
          .append(")\n");
      b.append("  Database  ")
          .append(
              RotaHost.withoutSecrets(
                  host.context().getProperty("datasources.default.url", String.class).orElse("?")))
          .append('\n');
      b.append("  Auth      ")
          .append(
              host.authEnabled()
                  ? "on"
                  : "OFF (ROTA_AUTH_ALLOW_INSECURE): anyone who reaches this port can do anything")
          .append('\n');
    }
    if (host.generatedAdminToken() != null) {
      b.append("  Admin token (shown once; store it now): ")
          .append(host.generatedAdminToken())
          .append('\n');
    }
    return b.toString();
  }
}
