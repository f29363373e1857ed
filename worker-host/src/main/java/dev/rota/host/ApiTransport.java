package dev.rota.host;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Whether the API serves HTTPS or plain HTTP, decided before the server exists. A production host
 * serves HTTPS with {@code ROTA_API_TLS_KEYSTORE} (PKCS12) and {@code
 * ROTA_API_TLS_KEYSTORE_PASSWORD}, on its API port; plain HTTP where others could reach it only
 * when asked for ({@code ROTA_API_INSECURE_HTTP=true}, e.g. behind a TLS proxy), and then with a
 * warning: tokens would cross the network readable. On loopback, nobody else can listen. Dev mode
 * serves loopback only.
 *
 * @param https whether the API serves HTTPS
 * @param warning what to warn of at start; empty for nothing
 * @param refusal why the host must not start (checked once the other settings were, so that a host
 *     with several things wrong names the first as before); empty if it may
 */
record ApiTransport(boolean https, Optional<String> warning, Optional<String> refusal) {

  /** Decides, and puts the server's TLS settings into {@code props} when it is HTTPS. */
  static ApiTransport configure(HostMode mode, Map<String, Object> props) {
    Optional<String> keystore =
        EarlySettings.get(props, "rota.api.tls-keystore", "ROTA_API_TLS_KEYSTORE");
    boolean insecure =
        EarlySettings.get(props, "rota.api.insecure-http", "ROTA_API_INSECURE_HTTP")
            .map(Boolean::parseBoolean)
            .orElse(false);
    String port =
        EarlySettings.get(props, "micronaut.server.port", "MICRONAUT_SERVER_PORT").orElse("8080");
    String host =
        EarlySettings.get(props, "micronaut.server.host", "MICRONAUT_SERVER_HOST")
            .orElse("0.0.0.0");
    if (keystore.isPresent()) {
      if (mode == HostMode.DEV) {
        throw new StartupException(
            "ROTA_API_TLS_KEYSTORE is for production hosts: dev mode serves loopback only");
      }
      Path file = Path.of(keystore.get()).toAbsolutePath().normalize();
      if (!Files.isReadable(file)) {
        throw new StartupException(
            "ROTA_API_TLS_KEYSTORE="
                + keystore.get()
                + " is not a readable file (a PKCS12 keystore)");
      }
      String password =
          EarlySettings.get(
                  props, "rota.api.tls-keystore-password", "ROTA_API_TLS_KEYSTORE_PASSWORD")
              .orElseThrow(
                  () ->
                      new StartupException(
                          "ROTA_API_TLS_KEYSTORE needs ROTA_API_TLS_KEYSTORE_PASSWORD, its password"));
      props.put("micronaut.server.ssl.enabled", "true");
      props.put("micronaut.server.ssl.port", port);
      props.put("micronaut.server.ssl.key-store.path", "file:" + file);
      props.put("micronaut.server.ssl.key-store.type", "PKCS12");
      props.put("micronaut.server.ssl.key-store.password", password);
      props.put("micronaut.server.dual-protocol", "false");
      return new ApiTransport(true, Optional.empty(), Optional.empty());
    }
    if (mode == HostMode.DEV || loopback(host)) {
      return new ApiTransport(false, Optional.empty(), Optional.empty());
    }
    if (!insecure) {
      return new ApiTransport(
          false,
          Optional.empty(),
          Optional.of(
              "refusing to serve the API in plain HTTP on "
                  + host
                  + ":"
                  + port
                  + ": give ROTA_API_TLS_KEYSTORE and ROTA_API_TLS_KEYSTORE_PASSWORD (PKCS12), or set "
                  + "ROTA_API_INSECURE_HTTP=true (behind a TLS proxy, say)"));
    }
    return new ApiTransport(
        false,
        Optional.of(
            "ROTA_API_INSECURE_HTTP=true: the API serves plain HTTP on "
                + host
                + ":"
                + port
                + "; tokens cross the network readable unless a TLS proxy is in front"),
        Optional.empty());
  }

  private static boolean loopback(String host) {
    if (host.equals("localhost")) {
      return true;
    }
    if (!host.matches("[0-9.]+|[0-9a-fA-F:]+")) {
      return false; // a name: it may resolve to anything
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
