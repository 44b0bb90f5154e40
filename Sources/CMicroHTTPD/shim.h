#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// `MHD_start_daemon` is variadic, which Swift cannot call. Every option is passed
/// through one `MHD_OPTION_ARRAY` terminated by `MHD_OPTION_END`.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags, uint16_t port,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
    MHD_AccessHandlerCallback handler, void *handler_context,
    struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, accept_policy, accept_policy_context, handler, handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// `MHD_get_connection_info` is variadic; the client address is the only field read.
/// Returns NULL when MHD has no address for the connection.
static inline const struct sockaddr *CMicroHTTPD_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// `MHD_get_connection_info` is variadic; returns the connection's socket, or -1.
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// `MHD_get_daemon_info` is variadic; returns the port the daemon listens on (the real
/// one when port 0 was asked for), or 0 when MHD cannot tell.
static inline uint16_t CMicroHTTPD_bind_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
