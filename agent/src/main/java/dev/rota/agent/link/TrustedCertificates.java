package dev.rota.agent.link;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS that trusts the certificates of one PEM file, and only they; host names are checked as usual.
 */
public final class TrustedCertificates {
  private TrustedCertificates() {}

  /**
   * For a controller whose HTTPS certificate no public CA signed ({@code ROTA_CONTROLLER_CA}).
   *
   * @param setting the setting that named the file, for the one-line error
   */
  public static SSLContext only(Path pem, String setting) {
    try (InputStream in = Files.newInputStream(pem)) {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int n = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trusted.setCertificateEntry("trusted-" + n++, c);
      }
      if (n == 0) {
        throw new GeneralSecurityException("no PEM certificate in it");
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          setting + "=" + pem + " cannot be used (" + e.getMessage() + ")");
    }
  }
}
