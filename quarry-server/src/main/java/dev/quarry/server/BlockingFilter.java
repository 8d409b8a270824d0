package dev.quarry.server;

/**
 * The blocking shape of a {@link Filter} (see {@link Filter#blocking(BlockingFilter)}): it runs on a virtual thread,
 * may block, and runs the rest of the chain with {@link Chain#proceed}, which returns once that has completed.
 *
 * <pre>{@code
 * Filter timing = Filter.blocking((request, response, chain) -> {
 *     long start = System.nanoTime();
 *     try {
 *         chain.proceed(request, response);
 *     } finally {
 *         log(request.path(), System.nanoTime() - start);
 *     }
 * });
 * }</pre>
 */
@FunctionalInterface
public interface BlockingFilter {

    /**
     * Filters one request.
     *
     * @param request the request
     * @param response the response
     * @param chain runs the rest of the chain
     * @throws Exception the request fails with it (500, or an abort once committed)
     */
    void filter(Request request, Response response, Chain chain) throws Exception;

    /** The rest of a filter chain, seen from a blocking filter. */
    @FunctionalInterface
    interface Chain {

        /**
         * Runs the rest of the chain (further filters, then the handler) with this request and response, which may
         * be wrapped, and waits until it has completed.
         *
         * @param request the request to pass on
         * @param response the response to pass on
         * @throws Exception what the rest of the chain failed with
         */
        void proceed(Request request, Response response) throws Exception;
    }
}
