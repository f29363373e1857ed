package dev.rota.agent;

import java.net.http.HttpClient;
import java.util.function.Supplier;

/**
 * An HTTP client made when first used. Each JDK client keeps a selector thread for as long as it
 * lives, and most agents never fetch an image: dev mode's thousand agents held two thousand such
 * threads, which idle cost system time (as {@link ControllerClient#httpClient} found for its own).
 */
final class HttpClientOnDemand {
  private final Supplier<HttpClient> make;
  private volatile HttpClient client;

  HttpClientOnDemand(Supplier<HttpClient> make) {
    this.make = make;
  }

  HttpClient get() {
    HttpClient made = client;
    if (made == null) {
      synchronized (this) {
        made = client;
        if (made == null) {
          made = make.get();
          client = made;
        }
      }
    }
    return made;
  }
}
