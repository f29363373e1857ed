package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals secrets' values for the database and opens them for a VM's start, with AES-256-GCM under
 * the operator's key ({@code ROTA_SECRETS_KEY}: 32 bytes in base64, or {@code
 * ROTA_SECRETS_KEY_FILE}: a file holding that). The secret's name is the associated data, so a
 * sealed value copied to another secret's row does not open. Without a key, no secret can be
 * written or used, and the API says why.
 */
@Singleton
public class SecretBox {
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKeySpec key;
  private final String missing;
  private final SecureRandom random = new SecureRandom();

  public SecretBox(SecretSettings settings) {
    String key = settings.key();
    String keyFile = settings.keyFile();
    String text = key;
    String problem = null;
    if ((text == null || text.isBlank()) && keyFile != null && !keyFile.isBlank()) {
      try {
        text = Files.readString(Path.of(keyFile), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        problem = "cannot read ROTA_SECRETS_KEY_FILE " + keyFile + ": " + e.getMessage();
      }
    }
    SecretKeySpec spec = null;
    if (problem == null && (text == null || text.isBlank())) {
      problem = "this cluster has no secrets key: its operator sets ROTA_SECRETS_KEY";
    } else if (problem == null) {
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(text.strip());
      } catch (IllegalArgumentException e) {
        bytes = new byte[0];
      }
      if (bytes.length != 32) {
        problem = "the secrets key is not 32 bytes in base64 (openssl rand -base64 32 makes one)";
      } else {
        spec = new SecretKeySpec(bytes, "AES");
      }
    }
    this.key = spec;
    this.missing = problem;
  }

  /** A new key, as ROTA_SECRETS_KEY takes it. */
  public static String newKey() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Why secrets cannot be sealed or opened here, or null when they can. */
  public @Nullable String unavailable() {
    return missing;
  }

  /** {@code value} sealed for the secret {@code name}. */
  public String seal(String name, String value) {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    byte[] sealed =
        cipher(Cipher.ENCRYPT_MODE, name, nonce, value.getBytes(StandardCharsets.UTF_8));
    byte[] whole = new byte[NONCE_BYTES + sealed.length];
    System.arraycopy(nonce, 0, whole, 0, NONCE_BYTES);
    System.arraycopy(sealed, 0, whole, NONCE_BYTES, sealed.length);
    return Base64.getEncoder().encodeToString(whole);
  }

  /** The value of the secret {@code name}, sealed as {@code sealed}. */
  public String open(String name, String sealed) {
    byte[] whole = Base64.getDecoder().decode(sealed);
    byte[] nonce = java.util.Arrays.copyOf(whole, NONCE_BYTES);
    byte[] body = java.util.Arrays.copyOfRange(whole, NONCE_BYTES, whole.length);
    return new String(cipher(Cipher.DECRYPT_MODE, name, nonce, body), StandardCharsets.UTF_8);
  }

  private byte[] cipher(int mode, String name, byte[] nonce, byte[] input) {
    if (key == null) {
      throw new IllegalStateException(missing);
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(("rota-secret:" + name).getBytes(StandardCharsets.UTF_8));
      return c.doFinal(input);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(
          "secret '" + name + "' does not open with this cluster's secrets key", e);
    }
  }
}
