import pytest
from tests.app.conftest import wait_for, group_count

@pytest.mark.browser
def test_smoke(dash_duo, make_app):
    app = make_app()
    dash_duo.start_server(app)
    wait_for(dash_duo, lambda: group_count(dash_duo) > 0, message="groups drawn")
