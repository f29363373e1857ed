package dev.rota.agentapi;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trust for the agents' HTTPS: an agent at {@code host:port} is trusted if its certificate is
 * exactly the one pinned for that endpoint at its registration (its SHA-256), whoever signed it;
 * anything else, including a certificate a public CA signed, is refused. The pin is the agent's
 * identity, so no host name is checked (agents are often called by address, and generate their own
 * certificates). Here, beside the agent's wire types, so that the controller and the agent's own
 * tests trust alike.
 */
public final class PinnedCertificates extends X509ExtendedTrustManager {
  private final Map<String, String> pins = new ConcurrentHashMap<>();

  /**
   * The pin for an endpoint's {@code host:port}, set before each call to it (it changes only with a
   * new registration).
   */
  /**
   * What trusts the one agent at {@code endpoint} by its certificate's pin {@code sha256}: null for
   * an {@code http://} endpoint, which has no certificate.
   */
  public static javax.net.ssl.SSLContext only(java.net.URI endpoint, String sha256) {
    if (!"https".equals(endpoint.getScheme())) {
      return null;
    }
    PinnedCertificates pins = new PinnedCertificates();
    pins.expect(
        endpoint.getHost() + ":" + (endpoint.getPort() < 0 ? 443 : endpoint.getPort()), sha256);
    return pins.context();
  }

  public void expect(String authority, String sha256) {
    pins.put(authority, sha256);
  }

  /**
   * The answer came over TLS from the pinned certificate; an {@link java.io.IOException} if not.
   */
  public void checkAnswered(
      java.util.Optional<javax.net.ssl.SSLSession> tls, String sha256, String endpoint)
      throws java.io.IOException {
    try {
      java.security.cert.Certificate[] peer =
          tls.orElseThrow(() -> new java.io.IOException("the answer did not come over TLS"))
              .getPeerCertificates();
      verify((X509Certificate) peer[0], sha256, endpoint);
    } catch (javax.net.ssl.SSLPeerUnverifiedException | CertificateException e) {
      throw new java.io.IOException(e.getMessage(), e);
    }
  }

  public SSLContext context() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {this}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JDK", e);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    check(chain, engine.getPeerHost() + ":" + engine.getPeerPort());
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    // A tunnel's socket, opened with the host name its endpoint gives (as the engine's peer host).
    if (!(socket instanceof javax.net.ssl.SSLSocket tls) || tls.getHandshakeSession() == null) {
      throw new CertificateException("no endpoint to check the certificate against");
    }
    check(chain, tls.getHandshakeSession().getPeerHost() + ":" + socket.getPort());
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    throw new CertificateException("no endpoint to check the certificate against");
  }

  private void check(X509Certificate[] chain, String authority) throws CertificateException {
    String pinned = pins.get(authority);
    if (pinned == null) {
      throw new CertificateException("no certificate is pinned for the agent at " + authority);
    }
    verify(chain[0], pinned, authority);
  }

  /**
   * The one check, at the handshake and on an answer: the presented certificate is the pinned one.
   */
  private static void verify(X509Certificate presented, String pinned, String where)
      throws CertificateException {
    String sha256 = sha256(presented);
    if (!MessageDigest.isEqual(sha256.getBytes(), pinned.getBytes())) {
      throw new CertificateException(
          "the agent at "
              + where
              + " presented certificate sha256 "
              + sha256
              + ", not the one pinned at its registration ("
              + pinned
              + ")");
    }
  }

  public static String sha256(X509Certificate certificate) throws CertificateException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new CertificateException(e);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    throw new CertificateException("the controller is no server to agents");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    throw new CertificateException("the controller is no server to agents");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    throw new CertificateException("the controller is no server to agents");
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
