package io.bloomguard.actuate;

import io.bloomguard.actuate.BloomFiltersEndpoint.ActionDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.FilterDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.RebuildDescriptor;
import io.bloomguard.core.BackendUnavailableException;
import io.bloomguard.registry.UnknownFilterException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import java.util.List;

/**
 * The {@link BloomFiltersEndpoint} over HTTP, with statuses that say what happened: 202 for a rebuild started (or
 * found running), 404 for an unknown filter (the body lists the configured ones), 400 for an unknown action or a
 * missing key or mode, 409 for a filter that cannot rebuild (now or at all), 503 when its store cannot be reached.
 *
 * <p>Usage: the auto-configuration declares it next to the endpoint when the endpoint is exposed over HTTP.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
@EndpointWebExtension(endpoint = BloomFiltersEndpoint.class)
public class BloomFiltersEndpointWebExtension {

    private static final int STATUS_CONFLICT = 409;
    /** A rebuild started, or found running: its body is the handle to poll. */
    private static final int STATUS_ACCEPTED = 202;

    private final BloomFiltersEndpoint delegate;

    public BloomFiltersEndpointWebExtension(BloomFiltersEndpoint delegate) {
        this.delegate = delegate;
    }

    @ReadOperation
    public WebEndpointResponse<Object> filter(@Selector String name) {
        FilterDescriptor filter = delegate.filter(name);
        return (filter != null) ? new WebEndpointResponse<>(filter) : notFound(name);
    }

    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String name, String action, @Nullable String key,
            @Nullable String mode, SecurityContext caller) {
        try {
            ActionDescriptor done = delegate.act(name, action, key, mode, caller);
            return new WebEndpointResponse<>(done, (done instanceof RebuildDescriptor) ? STATUS_ACCEPTED
                    : WebEndpointResponse.STATUS_OK);
        }
        catch (UnknownFilterException ex) {
            return notFound(name);
        }
        catch (IllegalArgumentException ex) {
            return failed(ex, WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        catch (UnsupportedOperationException | IllegalStateException ex) {
            return failed(ex, STATUS_CONFLICT);
        }
        catch (BackendUnavailableException ex) {
            return failed(ex, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    private WebEndpointResponse<Object> notFound(String name) {
        List<String> configured = delegate.names();
        return new WebEndpointResponse<>(new UnknownFilterDescriptor(
                new UnknownFilterException(name, configured).getMessage(), configured),
                WebEndpointResponse.STATUS_NOT_FOUND);
    }

    private static WebEndpointResponse<Object> failed(RuntimeException ex, int status) {
        return new WebEndpointResponse<>(new FailureDescriptor(String.valueOf(ex.getMessage())), status);
    }

    /** A 404's body: what was asked for and the filters that are configured. */
    public record UnknownFilterDescriptor(String message, List<String> filters) {
    }

    /** Why an action was refused or failed. */
    public record FailureDescriptor(String message) {
    }
}
