"""The Dash workbench: the graph, its fusion groups, their costs, edits, and live profiling.

``create_app(config)`` builds the app; ``workbench serve [FILE]`` starts it (see
:mod:`workbench.cli.serve`). Only this package imports Dash.
"""

from __future__ import annotations

from pathlib import Path

from workbench.app.server import AppConfig, Services
from workbench.paths import numba_cache_dir

#: the repository's assets/ folder (CSS, the clientside helpers)
ASSETS = Path(__file__).resolve().parents[2] / "assets"


def create_app(config: AppConfig | None = None):
    """The Dash app for ``config`` (default: open on the transformer block sample).

    Returns
    -------
    dash.Dash
        With ``app.services`` (:class:`~workbench.app.server.Services`) attached for tests.
    """
    from dash import Dash, dcc, html

    from workbench.app import (callbacks_cost, callbacks_diff, callbacks_exercise,
                               callbacks_explain, callbacks_learn, callbacks_link,
                               callbacks_load,
                               callbacks_plan, callbacks_profile, callbacks_tour,
                               callbacks_view, callbacks_whatif, ids, validation)
    from workbench.app.controller import device_choices, policies
    from workbench.app.layout import UPLOAD_MAX_BYTES, page
    from workbench.app.learn_layout import learn_page, learn_shell, tour_card
    from workbench.app.security import Guard

    config = config or AppConfig()
    numba_cache_dir().mkdir(parents=True, exist_ok=True)
    services = Services(config)
    app = Dash(__name__, title="Fusion Workbench", assets_folder=str(ASSETS),
               suppress_callback_exceptions=False, on_error=validation.callback_error)
    # the workbench's view at /, the Learn page at /learn (one layout: the session is shared);
    # the Learn page's components are added when it first opens (callbacks_learn.build_page),
    # the validation layout holds them all
    main = html.Div(page(services.choices(), services.initial_choice(), policies()),
                    id=ids.MAIN_VIEW)
    url = dcc.Location(id=ids.URL, refresh=False)
    built = dcc.Store(id=ids.LEARN_BUILT)
    app.layout = html.Div([url, main, learn_shell(), built, tour_card()])
    app.validation_layout = html.Div([url, main, learn_page(device_choices()), built,
                                      tour_card()])
    # a backstop behind the browser's check of the upload size (base64 adds a third)
    app.server.config["MAX_CONTENT_LENGTH"] = 2 * UPLOAD_MAX_BYTES
    Guard(config.host, config.port, config.token, config.allow_hosts).install(app.server)
    validation.install(app, validation.schemas(UPLOAD_MAX_BYTES))
    callbacks_load.register(app, services, UPLOAD_MAX_BYTES)
    callbacks_view.register(app, services)
    callbacks_plan.register(app, services)
    callbacks_cost.register(app, services)
    callbacks_explain.register(app, services)
    callbacks_profile.register(app, services)
    callbacks_whatif.register(app, services)
    callbacks_link.register(app, services)
    callbacks_diff.register(app, services)
    callbacks_learn.register(app, services)
    callbacks_exercise.register(app, services)
    callbacks_tour.register(app, services, config.tour)
    app.services = services
    return app


__all__ = ["AppConfig", "create_app"]
