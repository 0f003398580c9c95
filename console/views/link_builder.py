"""The click link builder: a GET form (media source, campaign, ad set, ad, optional redirect
URL, under the click endpoint's own parameter names, so a filled-in form is a shareable URL)
that answers with the absolute tracking link to copy. The query and its checks are
`tracking.click_links`; the redirect URL rule is the redirector's own."""

from __future__ import annotations

from django.shortcuts import render
from django.urls import reverse

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.capabilities import READ
from console.forms import FormProblem
from console.pages import AppPage
from tracking import click_links


class LinkBuilderPage(AppPage):
    capability = READ
    section = "link-builder"

    def get(self, request, app_id):
        values = {name: request.GET.get(name, "").strip() for name in click_links.PARAMETERS}
        context = self.context(values=values, device_id_parameter=click_links.DEVICE_ID_PARAMETER)
        if not any(name in request.GET for name in click_links.PARAMETERS):
            return render(request, "console/link_builder/form.html", context)
        link = click_links.ClickLink(
            app_id=self.app.id, media_source=values[click_links.MEDIA_SOURCE],
            campaign_id=values[click_links.CAMPAIGN], adset=values[click_links.ADSET],
            ad=values[click_links.AD], redirect_url=values[click_links.REDIRECT_URL])
        problems = click_links.link_problems(link)
        if problems:
            error = ValidationFailed(f"Invalid input: {', '.join(sorted(problems))}.", problems)
            return render(request, "console/link_builder/form.html",
                          {**context, "problem": FormProblem(error)}, status=error.status)
        url = f"{request.build_absolute_uri(reverse('clicks'))}?{click_links.click_query(link)}"
        return render(request, "console/link_builder/form.html", {**context, "link": url})
