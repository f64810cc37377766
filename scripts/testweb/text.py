"""Sentence pools for the test web's pages, written for it.

Latvian is the crawl's language, so its pool is the largest and most varied:
whatlang must tell it from Lithuanian and the other languages of the Latin
script on every page, also on the smallest ones. The other pools give the
pages a crawl must reject.
"""

LV = [
    "Rīga ir Latvijas galvaspilsēta un lielākā pilsēta Baltijas valstīs, kas atrodas pie Daugavas ietekas Rīgas jūras līcī.",
    "Vecrīgā ir saglabājušās daudzas viduslaiku ēkas, baznīcas un šauras ieliņas, kuras katru gadu apmeklē tūkstošiem ceļotāju.",
    "Latvijā ir vairāk nekā divi tūkstoši ezeru, un lielākā daļa no tiem atrodas Latgalē, kur ainava ir pauguraina un zaļa.",
    "Mežs aizņem gandrīz pusi no valsts teritorijas, tāpēc kokrūpniecība ir viena no svarīgākajām tautsaimniecības nozarēm.",
    "Dziesmu un deju svētki notiek reizi piecos gados, un tajos piedalās desmitiem tūkstošu dziedātāju un dejotāju no visas valsts.",
    "Latviešu valoda pieder baltu valodu grupai, un tai ir daudz kopīga ar lietuviešu valodu, kas ir tās tuvākā radiniece.",
    "Vasarā daudzi cilvēki dodas uz jūrmalu, kur gar krastu stiepjas garas smilšu pludmales un priežu meži.",
    "Ziemā dienas ir īsas un aukstas, bet Ziemassvētku laikā pilsētas rotā gaismas un tirdziņi ar karstiem dzērieniem.",
    "Pašvaldības dome vakar apsprieda jauno budžetu, un deputāti vienojās par lielāku finansējumu skolām un bērnudārziem.",
    "Skolēni šogad pirmo reizi kārtoja centralizēto eksāmenu dabaszinātnēs, un rezultāti bija labāki, nekā skolotāji gaidīja.",
    "Pie Gaujas ir iekārtotas vairākas dabas takas, pa kurām var doties pārgājienā un vērot upes krastu smilšakmens atsegumus.",
    "Lauksaimnieki stāsta, ka pavasaris bija vēls un lietains, tāpēc sēja sākās divas nedēļas vēlāk nekā parasti.",
    "Bibliotēkā ir pieejamas gan grāmatas, gan žurnāli, un lasītāji var izmantot datorus, lai meklētu informāciju internetā.",
    "Koncertzālē sestdienas vakarā uzstāsies simfoniskais orķestris, kas atskaņos latviešu komponistu mūziku.",
    "Vecmāmiņa katru rudeni vāra ievārījumu no dzērvenēm un brūklenēm, ko mēs ziemā ēdam kopā ar pankūkām.",
    "Jaunā tilta būvniecība turpināsies vēl divus gadus, un satiksme pa veco tiltu būs ierobežota darba dienu rītos.",
    "Muzejā atvērta izstāde par latviešu etnogrāfiju, kurā apskatāmas senas rotaslietas, tautastērpi un darbarīki.",
    "Ārsti iesaka katru dienu vismaz pusstundu pavadīt svaigā gaisā un ēst vairāk dārzeņu un augļu.",
    "Dzelzceļa stacijā pārbūvē peronus, tāpēc vilcieni uz Jelgavu un Tukumu atiet no citas vietas.",
    "Kurzemes piekrastē joprojām var atrast zvejnieku ciemus, kuros dzīvo lībiešu pēcteči un tiek koptas senas tradīcijas.",
    "Universitātes studenti rīkoja konferenci par valodas tehnoloģijām un mākslīgo intelektu latviešu valodā.",
    "Zemnieku tirgū var nopirkt svaigu maizi, medu, kūpinātas zivis un mājās gatavotu sieru no tuvējām saimniecībām.",
    "Jāņos cilvēki pin vainagus no ozola lapām un pļavas ziediem, kurina ugunskurus un dzied līgo dziesmas līdz rītam.",
    "Pilsētas parkā iestādīja simts jaunu liepu, un iedzīvotāji aicināti tās laistīt karstajās vasaras dienās.",
    "Valsts policija atgādina autovadītājiem, ka rudenī ceļi kļūst slideni un jābrauc uzmanīgāk nekā parasti.",
    "Daugavpils ir otrā lielākā Latvijas pilsēta, un tajā dzīvo cilvēki, kas runā latviešu, krievu un poļu valodā.",
    "Rakstnieks savā jaunajā romānā stāsta par kādas ģimenes likteni divdesmitā gadsimta sākumā Vidzemes laukos.",
    "Sportistiem izdevās izcīnīt bronzas medaļu Eiropas čempionātā, un līdzjutēji viņus sagaidīja lidostā ar ziediem.",
    "Laika prognoze sola, ka nedēļas nogalē būs saulains un silts, bet naktīs temperatūra var noslīdēt līdz nullei.",
    "Bērni ar prieku gaida vasaras brīvlaiku, kad varēs peldēties ezerā, braukt ar velosipēdu un ogot mežā.",
    "Zinātnieki pēta, kā klimata pārmaiņas ietekmē putnu migrāciju, un novērojumi liecina, ka gājputni atgriežas agrāk.",
    "Teātra izrāde par Raiņa lugu pulcēja pilnu zāli, un skatītāji aktierus ilgi sveica ar aplausiem.",
    "Jaunā likuma grozījumi paredz, ka iedzīvotāji varēs pieteikties pabalstam elektroniski, neejot uz iestādi.",
    "Siguldā ir viduslaiku pils drupas, gaisa tramvajs un bobsleja trase, tāpēc tur vienmēr ir daudz apmeklētāju.",
    "Saimniece ieteica kartupeļus stādīt maija vidū, kad zeme ir jau sasilusi un vairs nedraud salnas.",
    "Uzņēmums plāno paplašināt ražotni un nākamgad pieņemt darbā vēl piecdesmit strādniekus no apkārtējiem pagastiem.",
    "Ceļotāji atzīst, ka latviešu virtuve ir vienkārša, bet garšīga: pelēkie zirņi ar speķi, rupjmaize un skābputra.",
    "Arhīvā glabājas vecas vēstules un fotogrāfijas, kas palīdz vēsturniekiem izprast, kā cilvēki dzīvoja pirms simts gadiem.",
    "Kad pār Daugavu nolaižas migla, pilsētas torņi izskatās kā pasakā, un pat steidzīgi gājēji apstājas, lai paskatītos.",
    "Pagasta pārvalde aicina iedzīvotājus pieteikties talkai, kurā sakops upes krastus un izvedīs atkritumus no meža.",
]

EN = [
    "The library opens at nine in the morning and closes at six in the evening on every weekday.",
    "Visitors may borrow up to ten books at a time and keep them for three weeks before returning them.",
    "The reading room on the second floor is quiet and has comfortable chairs next to large windows.",
    "Children can join the summer reading club and receive a small prize for every five books they finish.",
    "The city council agreed on a new budget that gives more money to schools and public transport.",
    "Heavy rain is expected over the weekend, so the outdoor concert has been moved to the town hall.",
    "Our bakery uses flour from local mills and bakes fresh bread before sunrise every single day.",
    "The museum has opened a new exhibition about the history of shipbuilding in the harbour district.",
    "Researchers found that people who walk for half an hour a day sleep better and feel less tired.",
    "The train to the coast leaves every hour from platform four and takes about fifty minutes.",
    "Volunteers cleaned the river banks on Saturday and collected more than two hundred bags of rubbish.",
    "The new bridge will be finished next spring, and until then traffic will use the old road.",
]

DE = [
    "Die Bibliothek ist montags bis freitags von neun bis achtzehn Uhr geöffnet und samstags nur am Vormittag.",
    "Im Frühling blühen im Stadtpark tausende Tulpen, und viele Familien gehen dort am Wochenende spazieren.",
    "Der Gemeinderat hat beschlossen, die Straßenbahnlinie bis zum neuen Wohngebiet am Fluss zu verlängern.",
    "Unsere Bäckerei verwendet Mehl aus der Region und backt jeden Morgen frische Brötchen und Brezeln.",
    "Das Museum zeigt eine Ausstellung über die Geschichte der Schifffahrt und des Hafens im neunzehnten Jahrhundert.",
    "Für das Wochenende sagt der Wetterdienst kräftige Schauer und Gewitter voraus, besonders im Süden.",
    "Die Schüler haben im Rahmen eines Projekts einen Garten angelegt, in dem sie Gemüse und Kräuter ziehen.",
    "Der Zug nach München fährt stündlich vom Gleis drei ab und braucht ungefähr zwei Stunden.",
    "Nach der Renovierung ist das alte Rathaus wieder für Besucher geöffnet und beherbergt ein kleines Café.",
    "Viele Menschen fahren im Sommer an die Ostsee, um dort am Strand zu liegen und im Meer zu schwimmen.",
]

RU = [
    "Библиотека открыта с девяти утра до шести вечера по будним дням, а в субботу только до обеда.",
    "Весной в городском парке цветут тысячи тюльпанов, и многие семьи гуляют там по выходным.",
    "Городской совет решил продлить трамвайную линию до нового жилого района на берегу реки.",
    "Наша пекарня использует муку местных мельниц и каждое утро печёт свежий хлеб и булочки.",
    "В музее открылась выставка, посвящённая истории судоходства и порта в девятнадцатом веке.",
    "На выходные синоптики обещают сильные дожди и грозы, особенно в южных районах страны.",
    "Школьники разбили сад, в котором выращивают овощи и травы, и ухаживают за ним всё лето.",
    "Поезд до столицы отправляется каждый час с третьей платформы и идёт около двух часов.",
    "После ремонта старая ратуша снова открыта для посетителей, и в ней работает небольшое кафе.",
    "Летом многие отправляются на побережье, чтобы отдохнуть на пляже и искупаться в море.",
]

# The calendar trap's month names and its text around them.
LV_MONTHS = [
    "janvāris", "februāris", "marts", "aprīlis", "maijs", "jūnijs",
    "jūlijs", "augusts", "septembris", "oktobris", "novembris", "decembris",
]
LV_CALENDAR = [
    "Pasākumu kalendārā atrodami visi koncerti, izstādes un sapulces, kas notiks šajā mēnesī mūsu pilsētā.",
    "Lai pieteiktos kādam no pasākumiem, lūdzam iepriekš sazināties ar organizatoriem pa tālruni vai elektroniski.",
    "Kalendārs tiek papildināts katru nedēļu, tāpēc iesakām to apskatīt regulāri un sekot jaunumiem.",
    "Ieeja lielākajā daļā pasākumu ir bez maksas, bet vietu skaits ir ierobežots, tāpēc jāierodas laikus.",
]

TITLES = {
    "lv": ["Jaunumi", "Kultūra", "Sports", "Daba", "Vēsture", "Izglītība", "Ceļojumi", "Saimniecība"],
    "en": ["News", "Culture", "Sport", "Nature", "History", "Education", "Travel", "Business"],
    "de": ["Nachrichten", "Kultur", "Sport", "Natur", "Geschichte", "Bildung", "Reisen", "Wirtschaft"],
    "ru": ["Новости", "Культура", "Спорт", "Природа", "История", "Образование", "Путешествия", "Экономика"],
}

POOLS = {"lv": LV, "en": EN, "de": DE, "ru": RU}
