"""The minimal Scrapy crawler of the comparison (scripts/bench/compare):
follow every link within the .test hosts, keep nothing.

    scrapy runspider spider.py -a seeds=URL,URL -a trap=REGEX [-s NAME=VALUE ...]

Scrapy has no guard against a page that links one level deeper for ever,
so it is given `trap`, a regular expression with the effect of nlpc-scan's
--max-path-depth, and applies it as its link extractor's deny pattern.
"""

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class TestWeb(CrawlSpider):
    name = "testweb"
    allowed_domains = ["test"]

    def __init__(self, seeds="", trap=r"$^", *args, **kwargs):
        self.start_urls = [s for s in seeds.split(",") if s]
        # allowed_domains keeps the crawl on the test hosts (the link
        # extractor's own allow_domains would compare host:port).
        self.rules = (Rule(LinkExtractor(deny=[trap]),
                           callback="page", follow=True),)
        super().__init__(*args, **kwargs)

    def page(self, response):
        # The pages themselves are not kept: the comparison is of crawling.
        return None
