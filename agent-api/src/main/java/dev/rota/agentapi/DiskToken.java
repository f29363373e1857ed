package dev.rota.agentapi;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A token that lets one agent read one persistent disk of another's, until it expires: what the
 * controller hands the agent a disk is copied to. It is the disk's id and the expiry, signed with
 * the holding agent's own secret, so that the holding agent checks it with nothing stored and
 * grants nothing else by it.
 */
public final class DiskToken {
  private static final String PREFIX = "disk1.";

  private DiskToken() {}

  /**
   * What a token names for the VM arriving at task {@code taskId} by a live move ({@link
   * LiveMove}): it lets the agent the VM leaves send it to that task alone. It cannot be a disk's
   * id, which has no colon.
   */
  public static String incoming(String taskId) {
    return "incoming:" + taskId;
  }

  /** A token for disk {@code diskId} that holds until {@code expiresAtEpochSecond}. */
  public static String mint(String secret, String diskId, long expiresAtEpochSecond) {
    return PREFIX + expiresAtEpochSecond + "." + mac(secret, diskId, expiresAtEpochSecond);
  }

  /**
   * Whether {@code token} is one for disk {@code diskId}, signed with {@code secret}, unexpired.
   */
  public static boolean grants(String secret, String diskId, String token, long nowEpochSecond) {
    if (token == null || !token.startsWith(PREFIX)) {
      return false;
    }
    String[] parts = token.substring(PREFIX.length()).split("\\.", 2);
    if (parts.length != 2) {
      return false;
    }
    long expires;
    try {
      expires = Long.parseLong(parts[0]);
    } catch (NumberFormatException e) {
      return false;
    }
    return nowEpochSecond <= expires
        && MessageDigest.isEqual(
            mac(secret, diskId, expires).getBytes(StandardCharsets.US_ASCII),
            parts[1].getBytes(StandardCharsets.US_ASCII));
  }

  private static String mac(String secret, String diskId, long expires) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      byte[] signed =
          mac.doFinal(("disk " + diskId + " until " + expires).getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(signed);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is missing from this JVM", e);
    }
  }
}
