//! The tables. Each macro passes its rows to the callback it is given, so
//! one list feeds the constants of this crate, the checks of portos-macros
//! and the enums of portos-core. Add a word here and all three follow.

/// `SideEffect`: everything but `read` counts as a write.
#[macro_export]
macro_rules! side_effects {
    ($($callback:tt)*) => {
        $($callback)*! { SideEffect {
            Read = "read",
            Write = "write",
            SupervisedWrite = "supervised-write",
            Destructive = "destructive",
        } }
    };
}

/// `Confirmation`.
#[macro_export]
macro_rules! confirmations {
    ($($callback:tt)*) => {
        $($callback)*! { Confirmation {
            None = "none",
            CapabilityGrant = "capability-grant",
        } }
    };
}

/// `HttpMethod`: the methods `#[portos_route]` declares.
#[macro_export]
macro_rules! http_methods {
    ($($callback:tt)*) => {
        $($callback)*! { HttpMethod {
            Get = "GET",
            Post = "POST",
            Put = "PUT",
            Patch = "PATCH",
            Delete = "DELETE",
        } }
    };
}

/// `Access`: who may reach an operation (docs/reference.md#route-catalog
/// `access`).
#[macro_export]
macro_rules! route_access {
    ($($callback:tt)*) => {
        $($callback)*! { Access {
            AlwaysPublic = "always-public",
            Loopback = "loopback",
            ExternallyExposable = "externally-exposable",
            AuthenticatedUi = "authenticated-ui",
        } }
    };
}

/// `RouteEffect`: what an operation does (docs/reference.md#route-catalog
/// `sideEffect`).
#[macro_export]
macro_rules! route_effects {
    ($($callback:tt)*) => {
        $($callback)*! { RouteEffect {
            Read = "read",
            Write = "write",
            Destructive = "destructive",
            ProcessControl = "process-control",
        } }
    };
}

/// `ToolPrivacy`: whose data an HTTP tool handles (`personal`: the user's
/// own; `internal`: only data about the server itself).
#[macro_export]
macro_rules! tool_privacy {
    ($($callback:tt)*) => {
        $($callback)*! { ToolPrivacy {
            Personal = "personal",
            Internal = "internal",
        } }
    };
}

/// `HttpToolEffect`: what an HTTP tool does (`local-compute`: computes on
/// this machine and changes nothing kept).
#[macro_export]
macro_rules! http_tool_effects {
    ($($callback:tt)*) => {
        $($callback)*! { HttpToolEffect {
            Read = "read",
            LocalCompute = "local-compute",
            Write = "write",
            Destructive = "destructive",
        } }
    };
}

/// `Direction`: which way a Socket.IO event travels.
#[macro_export]
macro_rules! event_directions {
    ($($callback:tt)*) => {
        $($callback)*! { Direction {
            ClientToServer = "client-to-server",
            ServerToClient = "server-to-client",
        } }
    };
}
