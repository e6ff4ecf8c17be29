//! The tables. Each macro passes its rows to the callback it is given, so
//! one list feeds the constants of this crate, the checks of portos-macros
//! and the enums of portos-core. Add a word here and all three follow.

/// `Scope`: where a call came in from.
#[macro_export]
macro_rules! scopes {
    ($($callback:tt)*) => {
        $($callback)*! { Scope {
            Agent = "agent",
            Mind = "mind",
            Ui = "ui",
            Voice = "voice",
        } }
    };
}

/// `Capability`: a grant, in the contract's order (the order of the
/// serialized grants object).
#[macro_export]
macro_rules! capabilities {
    ($($callback:tt)*) => {
        $($callback)*! { Capability {
            ReadPortos = "readPortos",
            WritePortos = "writePortos",
            ManageEidoverse = "manageEidoverse",
            VisitEidoversePeers = "visitEidoversePeers",
            CreateTasks = "createTasks",
            FileIssues = "fileIssues",
            ManageToolRecipes = "manageToolRecipes",
            ManageMind = "manageMind",
            ChooseThinkingPreset = "chooseThinkingPreset",
            AdjustLocalContext = "adjustLocalContext",
            CallToolRecipes = "callToolRecipes",
        } }
    };
}

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
