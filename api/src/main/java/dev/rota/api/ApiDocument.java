package dev.rota.api;

import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.info.Info;

/** The OpenAPI document's header; the paths come from the controllers at compile time. */
@OpenAPIDefinition(
    info =
        @Info(
            title = "Rota",
            version = "1",
            description = "Places VMs on worker machines and keeps them healthy. Errors are application/problem+json."))
public final class ApiDocument {
  private ApiDocument() {}
}
