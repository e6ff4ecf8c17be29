//! PortOS's policy vocabulary: the capabilities its tools require and the
//! scopes its callers speak for, declared as any application declares its
//! own. A crate of its own so that a binary can link PortOS's words
//! without its domains (the framework's registry tests do).
//!
//! The capabilities are in the contract's order (the order of the
//! Persistent Mind's grants object); the agent's grants object lists the
//! five the Agent Tools settings offer, in their order.

use portos_core::{Authority, Capabilities, Scope};

portos_core::vocabulary! {
    capabilities {
        /// Read the owner's PortOS data through the semantic tools.
        READ_PORTOS = "readPortos",
        /// Change the owner's PortOS data through the semantic tools.
        WRITE_PORTOS = "writePortos",
        /// Build in and manage the owner's Eidoverse world.
        MANAGE_EIDOVERSE = "manageEidoverse",
        /// Travel to peer worlds on other machines.
        #[open_world]
        VISIT_EIDOVERSE_PEERS = "visitEidoversePeers",
        /// Queue coding tasks for the Chief of Staff's agents.
        CREATE_TASKS = "createTasks",
        /// Read and file issues on managed apps' forges.
        FILE_ISSUES = "fileIssues",
        /// Author, change, archive and restore saved read recipes.
        MANAGE_TOOL_RECIPES = "manageToolRecipes",
        /// Manage the Persistent Mind's own memories and name.
        MANAGE_MIND = "manageMind",
        /// Choose a thinking preset the owner approved.
        CHOOSE_THINKING_PRESET = "chooseThinkingPreset",
        /// Change the Persistent Mind's local context window.
        ADJUST_LOCAL_CONTEXT = "adjustLocalContext",
        /// Call saved read recipes.
        CALL_TOOL_RECIPES = "callToolRecipes",
    }
    scopes {
        /// Coding agents over Agent Tools MCP, with the action grants of the
        /// Agent Tools settings (all off by default).
        #[grants(READ_PORTOS, WRITE_PORTOS, CALL_TOOL_RECIPES, MANAGE_EIDOVERSE, VISIT_EIDOVERSE_PEERS)]
        #[transport(mcp)]
        AGENT = "agent",
        /// The Persistent Mind, with the capabilities the owner granted it
        /// (all off by default); calling saved recipes is the agent's grant,
        /// never the Mind's (it runs its recipes under `manageToolRecipes`).
        #[grants(
            READ_PORTOS,
            WRITE_PORTOS,
            MANAGE_EIDOVERSE,
            VISIT_EIDOVERSE_PEERS,
            CREATE_TASKS,
            FILE_ISSUES,
            MANAGE_TOOL_RECIPES,
            MANAGE_MIND,
            CHOOSE_THINKING_PRESET,
            ADJUST_LOCAL_CONTEXT
        )]
        MIND = "mind",
        /// People over HTTP: reads are open, writes need a signed-in session.
        #[signed_in]
        #[transport(http)]
        UI = "ui",
        /// The voice pipeline, which confirms on its own side.
        #[trusted]
        VOICE = "voice",
    }
    context {
        /// PortOS's pages and settings: where things are.
        #[default]
        NAVIGATION = "navigation",
        /// The managed apps' workspaces.
        #[default]
        WORKSPACES = "workspaces",
        /// The brain inbox's captures.
        BRAIN = "brain",
        /// Who the owner and the Persistent Mind are.
        IDENTITY = "identity",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_words() {
        use portos_core::{Capability, Guard, Transport};
        assert_eq!(Capability::all().count(), 11);
        assert_eq!(Scope::all().collect::<Vec<_>>(), ALL_SCOPES);
        assert_eq!(Scope::of_transport(Transport::Http), Some(UI));
        assert_eq!(Scope::of_transport(Transport::Mcp), Some(AGENT));
        assert_eq!(MIND.grantable().len(), 10);
        assert!(!MIND.grantable().contains(&CALL_TOOL_RECIPES));
        assert_eq!(
            AGENT.grantable(),
            [
                READ_PORTOS,
                WRITE_PORTOS,
                CALL_TOOL_RECIPES,
                MANAGE_EIDOVERSE,
                VISIT_EIDOVERSE_PEERS
            ]
        );
        assert_eq!(VOICE.guard(), Guard::Trusted);
        assert_eq!(
            portos_core::ContextScope::defaults().collect::<Vec<_>>(),
            [NAVIGATION, WORKSPACES]
        );
        assert!(
            VISIT_EIDOVERSE_PEERS
                .term()
                .is_some_and(|term| term.open_world)
        );
        assert!(portos_core::contract::words::vocabulary_problems().is_empty());
    }
}

/// Every scope, in the contract's order.
pub const ALL_SCOPES: [Scope; 4] = [AGENT, MIND, UI, VOICE];

/// The authority of each PortOS principal.
pub mod principal {
    use super::{AGENT, Authority, Capabilities, MIND, UI, VOICE};

    /// An HTTP caller: signed in or anonymous.
    pub fn ui(authenticated: bool) -> Authority {
        Authority::of(UI).signed_in(authenticated)
    }

    /// An MCP agent holding `grants`.
    pub fn agent(grants: Capabilities) -> Authority {
        Authority::of(AGENT).granted(grants)
    }

    /// The Persistent Mind holding `grants`.
    pub fn mind(grants: Capabilities) -> Authority {
        Authority::of(MIND).granted(grants)
    }

    /// The voice pipeline.
    pub fn voice() -> Authority {
        Authority::of(VOICE)
    }
}
