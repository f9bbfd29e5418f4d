"""The pages in a real browser: steps appear live, approvals resume, sync shows up.

Each test asks through the page's query box or presses its buttons, exactly as a person
would, and waits for the page to change by itself (server-sent events): a marker set on
the page before asking proves it never reloaded.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

COMPOUND = "turn off the kitchen lights and lock the front door, then is Tokyo warmer than Seoul?"


def open_live(context: Any, url: str) -> Any:
    """A page at ``url`` with its event stream connected and a no-reload marker set."""
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#live.on")
    page.evaluate("window.__noReload = true")
    return page


def ask(page: Any, query: str) -> Any:
    """Type a query into the box and press Enter; return its session's card."""
    page.fill("#ask input[name=query]", query)
    page.press("#ask input[name=query]", "Enter")
    card = page.locator("article.session", has=page.locator(".query", has_text=query)).first
    card.wait_for()
    return card


def assert_not_reloaded(page: Any) -> None:
    assert page.evaluate("window.__noReload") is True


def test_a_device_query_shows_its_route_and_steps_live(stack: Any, browser_context: Any) -> None:
    page = open_live(browser_context, stack.device_url)
    card = ask(page, "what's 15% of 80")
    card.locator(".final-answer", has_text="12").wait_for()
    kinds = card.locator("tr.step td.kind").all_inner_texts()
    assert [k.split()[0] for k in kinds] == ["thought", "action", "observation", "answer"]
    assert card.locator("tr.action td").nth(3).inner_text() == "calculator"
    assert "15 % of 80" in card.locator("tr.action").inner_text()
    assert card.locator("dd.route-route").inner_text() == "edge"
    assert card.locator("dd.route-intent").inner_text() == "calculator"
    assert "15 % of 80" in card.locator("dd.route-slots").inner_text()
    assert '"calculator"' in card.locator("dd.route-intents").inner_text()  # with runners-up
    assert float(card.locator("dd.route-confidence").inner_text()) > 0.5
    assert card.locator(".ids").get_attribute("title").split("trace ")[1]  # a trace id
    # The receipt's digest, recomputed on the server.
    card.locator(".verify button").click()
    card.locator(".verify .ok", has_text="verified").wait_for()
    assert_not_reloaded(page)
    page.close()


def test_a_compound_query_streams_cloud_steps_and_device_actions(
    stack: Any, browser_context: Any
) -> None:
    cloud_page = open_live(browser_context, stack.cloud_url)
    page = open_live(browser_context, stack.device_url)
    card = ask(page, COMPOUND)
    card.locator(".final-answer").wait_for()
    assert card.locator("dd.route-route").inner_text() == "cloud"
    assert card.locator("dd.route-reason").inner_text()  # why it went to the cloud
    device_actions = card.locator("tr.device-action")
    assert device_actions.count() >= 2  # the lights and the lock, run on the device
    assert "runs on the device" in device_actions.first.inner_text()
    origins = set(card.locator("tr.step td:nth-child(3)").all_inner_texts())
    assert {"edge", "cloud"} <= origins
    assert "Tokyo" in card.locator(".final-answer").inner_text()
    # The cloud's receipt, kept on the device: verified against the stored steps there.
    card.locator(".verify button").click()
    card.locator(".verify .ok", has_text="verified").wait_for()
    # The cloud's page saw the same session under this device, with its receipt.
    cloud_card = cloud_page.locator(
        "article.session", has=cloud_page.locator(".query", has_text="Tokyo warmer")
    ).first
    cloud_card.locator(".final-answer").wait_for()
    assert cloud_card.locator(".tag", has_text="test-phone").count() == 1
    cloud_page.locator("#devices td", has_text="test-phone").wait_for()
    cloud_card.locator(".verify button").click()
    cloud_card.locator(".verify .ok", has_text="verified").wait_for()
    assert cloud_page.locator("#backends td", has_text="planner").count() == 1
    assert cloud_page.locator("#charts figure.chart").count() == 4
    assert_not_reloaded(page)
    assert_not_reloaded(cloud_page)
    page.close()
    cloud_page.close()


def test_an_unlock_approved_on_the_page_finishes_the_session(
    stack: Any, browser_context: Any
) -> None:
    page = open_live(browser_context, stack.device_url)
    card = ask(page, "unlock the front door")
    approval = page.locator("#approvals .approval", has_text="door_lock")
    approval.wait_for()
    assert "awaiting approval" in card.locator(".state").inner_text()
    approval.locator("button.approve").click()
    card.locator(".final-answer", has_text="unlocked").wait_for()
    assert card.locator(".state").inner_text() == "finished"
    assert page.locator("#approvals .approval").count() == 0
    observation = card.locator("tr.observation")
    assert "ok" in observation.inner_text() and "unlocked" in observation.inner_text()
    page.locator("#memory details[data-kind=device_state] td", has_text="unlocked").wait_for()
    assert_not_reloaded(page)
    page.close()


def test_a_note_written_on_the_device_appears_in_the_cloud_after_a_sync(
    stack: Any, browser_context: Any
) -> None:
    cloud_page = open_live(browser_context, stack.cloud_url)
    page = open_live(browser_context, stack.device_url)
    card = ask(page, "add a note: renew the passport")
    card.locator(".final-answer").wait_for()
    page.locator("#memory details[data-kind=notes] td", has_text="renew the passport").wait_for()
    assert cloud_page.locator("#memory td", has_text="renew the passport").count() == 0
    page.locator("#sync-now").click()
    page.locator("#sync .agreement", has_text="agree").wait_for()
    assert page.locator("#sync .last-sync").inner_text() != "never"
    cloud_page.locator("#memory td", has_text="renew the passport").wait_for()
    assert_not_reloaded(page)
    assert_not_reloaded(cloud_page)
    page.close()
    cloud_page.close()
