package dev.rota.agent.server;

import dev.rota.agent.config.AgentConfig;
import dev.rota.agentapi.PinnedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The certificate the agent's task API is served with: one given ({@code ROTA_AGENT_TLS_CERT} and
 * {@code ROTA_AGENT_TLS_KEY}, PEM), or one the agent generated at its first start and keeps in its
 * data folder, so that it stays the same across restarts: the controller pins its SHA-256 at
 * registration and refuses any other. No CA is involved, and no host name is checked: the pin is
 * the identity.
 *
 * @param context what the HTTPS server serves with
 * @param sha256 the leaf certificate's SHA-256 (hex, lowercase), sent with the registration
 */
public record AgentTls(SSLContext context, String sha256) {
  /** The given certificate, or the generated one (made now if there is none yet). */
  public static AgentTls load(AgentConfig config) {
    try {
      if (config.tlsCert() != null) {
        return given(config.tlsCert(), config.tlsKey());
      }
      return generated(config.tlsKeystore(), config.workerName(), config.listenHost());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "the agent cannot set up TLS ("
              + e.getMessage()
              + "); give ROTA_AGENT_TLS_CERT and "
              + "ROTA_AGENT_TLS_KEY, or ROTA_AGENT_INSECURE_HTTP=true for plain HTTP");
    }
  }

  private static AgentTls given(Path certFile, Path keyFile)
      throws IOException, GeneralSecurityException {
    List<Certificate> chain;
    try (InputStream in = Files.newInputStream(certFile)) {
      chain = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
    if (chain.isEmpty()) {
      throw new GeneralSecurityException(certFile + " holds no PEM certificate");
    }
    PrivateKey key = pkcs8(Files.readString(keyFile, StandardCharsets.US_ASCII), keyFile);
    char[] password = randomPassword().toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("agent", key, password, chain.toArray(Certificate[]::new));
    return of(store, password);
  }

  /** A PEM "PRIVATE KEY" (PKCS#8), of whichever algorithm its certificate uses. */
  private static PrivateKey pkcs8(String pem, Path file) throws GeneralSecurityException {
    String body = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
    if (!pem.contains("BEGIN PRIVATE KEY") || body.isEmpty()) {
      throw new GeneralSecurityException(
          file + " is not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)");
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body));
    for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException notThisOne) {
        // next
      }
    }
    throw new GeneralSecurityException(
        file + " holds a private key of no algorithm the agent knows (EC, RSA, Ed25519)");
  }

  /**
   * The keystore the agent made at its first start, or a new one: an EC P-256 key and a self-signed
   * certificate for ten years, by the JDK's keytool (the JDK has no API for it), its password
   * beside it.
   */
  private static AgentTls generated(Path file, String worker, String listenHost)
      throws IOException, GeneralSecurityException {
    Path passwordFile = file.resolveSibling("agent.p12.password");
    if (!Files.exists(file) || !Files.exists(passwordFile)) {
      Files.createDirectories(file.getParent());
      Files.deleteIfExists(file);
      String password = randomPassword();
      Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
      Path part = file.resolveSibling("agent.p12.part");
      Files.deleteIfExists(part);
      Path passwordPart = passwordFile.resolveSibling("agent.p12.password.part");
      Files.writeString(passwordPart, password);
      restrict(passwordPart);
      // The password goes by file, not on the command line: there any user's ps could read it, and
      // keytool's launcher took one that began "-J" for an option of its JVM (a random password
      // did, once in a while).
      List<String> command =
          List.of(
              keytool.toString(),
              "-genkeypair",
              "-alias",
              "agent",
              "-keyalg",
              "EC",
              "-groupname",
              "secp256r1",
              "-sigalg",
              "SHA256withECDSA",
              "-validity",
              "3650",
              "-dname",
              "CN=" + worker + ", O=Rota agent",
              "-ext",
              "SAN=dns:localhost,ip:127.0.0.1" + subjectName(listenHost),
              "-keystore",
              part.toString(),
              "-storetype",
              "PKCS12",
              "-storepass:file",
              passwordPart.toString(),
              "-keypass:file",
              passwordPart.toString());
      Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
      String said = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      try {
        if (!run.waitFor(60, TimeUnit.SECONDS) || run.exitValue() != 0) {
          throw new IOException("keytool could not generate a certificate: " + said);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while generating the certificate");
      }
      restrict(part);
      Files.move(passwordPart, passwordFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.move(part, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    char[] password = Files.readString(passwordFile).strip().toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, password);
    }
    return of(store, password);
  }

  private static String subjectName(String listenHost) {
    if (listenHost.equals("127.0.0.1")
        || listenHost.equals("localhost")
        || listenHost.equals("0.0.0.0")
        || listenHost.equals("::")) {
      return "";
    }
    return listenHost.matches("[0-9.]+|[0-9a-fA-F:]+") ? ",ip:" + listenHost : ",dns:" + listenHost;
  }

  private static AgentTls of(KeyStore store, char[] password) throws GeneralSecurityException {
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return new AgentTls(
        context, PinnedCertificates.sha256((X509Certificate) store.getCertificate("agent")));
  }

  private static String randomPassword() {
    byte[] bytes = new byte[24];
    new java.security.SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static void restrict(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException notPosix) {
      // the folder's own permissions are all there is
    }
  }
}
