# The texts of the nlpc-vrfy test corpus: a few paragraphs in each language,
# written for these tests in the style of encyclopedia and news articles.
# make.py turns them into pages in many charsets.

TEXTS = {}

TEXTS["lv-daugava"] = ("lv", "Daugava", """\
Daugava ir viena no lielākajām upēm Austrumeiropā un garākā upe, kas tek caur Latviju. Tās kopējais garums ir aptuveni tūkstotis divsimt kilometru, no kuriem Latvijas teritorijā atrodas gandrīz trīssimt piecdesmit kilometri. Upe sākas Valdaja augstienē Krievijā, tek caur Baltkrieviju un ietek Rīgas jūras līcī netālu no Rīgas.

Gadsimtiem ilgi Daugava bija svarīgs tirdzniecības ceļš, pa kuru tirgotāji veda kokmateriālus, labību un kažokādas no austrumu zemēm uz Baltijas jūras ostām. Krastos izveidojās pilsētas un pilis, no kurām daudzas ir saglabājušās līdz mūsdienām. Koknese, Aizkraukle, Jēkabpils un Daugavpils ir tikai dažas no vietām, kuru vēsture cieši saistīta ar upi.

Divdesmitajā gadsimtā uz Daugavas tika uzceltas trīs lielas hidroelektrostacijas: Ķeguma, Pļaviņu un Rīgas. Tās joprojām ražo ievērojamu daļu no Latvijā patērētās elektroenerģijas. Tomēr ūdenskrātuvju izveide appludināja senas apdzīvotas vietas un mainīja ielejas ainavu, tāpēc daļa sabiedrības būvniecībai asi iebilda.

Mūsdienās Daugavas ielejā ir vairākas dabas aizsardzības teritorijas. Pavasarī, kad kūst sniegs un ledus, upe bieži izplūst no krastiem, un ūdens līmenis dažās vietās paceļas par vairākiem metriem. Vasarā krastos atpūšas makšķernieki, laivotāji un tūristi, kas vēlas apskatīt skaistos dolomīta atsegumus un vecās pilsdrupas.
""")

TEXTS["lv-riga"] = ("lv", "Rīgas dome apstiprina jaunu transporta plānu", """\
Rīgas domes deputāti ceturtdien apstiprināja jaunu sabiedriskā transporta attīstības plānu, kas paredz līdz nākamā gada beigām atjaunot gandrīz pusi no pilsētas tramvaju parka. Pēc satiksmes departamenta vadītāja teiktā, jaunie zemās grīdas tramvaji būs ērtāki gan cilvēkiem ar bērnu ratiņiem, gan senioriem, un tie patērēs par trešdaļu mazāk elektrības.

Plāns paredz arī pārbūvēt vairākas pieturas centrā un Pārdaugavā, kā arī ieviest vienotu biļešu sistēmu, kas ļaus ar vienu karti braukt gan pilsētas autobusos, gan vilcienos. Iedzīvotāji jau iepriekš bija sūdzējušies, ka pārsēšanās starp dažādiem pārvadātājiem ir dārga un neērta.

Opozīcijas deputāti norādīja, ka projekta izmaksas ir pārāk lielas un ka pašvaldībai vispirms vajadzētu sakārtot ielas un tiltus. Domes priekšsēdētājs atbildēja, ka lielāko daļu naudas segs Eiropas Savienības fondi, bet pilsētas budžetā papildu līdzekļi būs nepieciešami tikai nākamajos trīs gados.

Darbi sāksies jau šovasar, un satiksmes ierobežojumi gaidāmi Brīvības ielā, Krišjāņa Valdemāra ielā un pie Centrālās stacijas. Par izmaiņām maršrutos pasažieri tiks informēti pieturās, mājaslapā un mobilajā lietotnē.
""")

TEXTS["lv-mezi"] = ("lv", "Latvijas meži", """\
Meži aizņem vairāk nekā pusi no Latvijas teritorijas, un šajā ziņā valsts ir viena no mežainākajām Eiropā. Visbiežāk sastopamās koku sugas ir priede, egle un bērzs, bet upju ielejās un mitrās vietās aug arī melnalksnis, apse un ozols. Gandrīz puse mežu pieder valstij, bet pārējie ir privātīpašnieku un pašvaldību rokās.

Mežsaimniecība un kokapstrāde ir viena no svarīgākajām tautsaimniecības nozarēm. Kokmateriālus, finieri un granulas eksportē uz daudzām valstīm, un nozarē strādā desmitiem tūkstošu cilvēku. Tajā pašā laikā vides aizstāvji brīdina, ka pārāk intensīva ciršana apdraud retas augu un dzīvnieku sugas.

Latvieši mežu vienmēr ir uzskatījuši par savas dzīves daļu. Rudenī ģimenes dodas sēņot un ogot, ziemā slēpo pa meža takām, bet pavasarī klausās putnu dziesmās. Daudzās tautasdziesmās un pasakās mežs ir gan patvērums, gan noslēpumaina vieta, kurā dzīvo gari un zvēri.
""")

TEXTS["lt-vilnius"] = ("lt", "Vilnius", """\
Vilnius yra Lietuvos sostinė ir didžiausias šalies miestas, įsikūręs Neries ir Vilnelės santakoje. Pirmą kartą rašytiniuose šaltiniuose miestas paminėtas keturioliktojo amžiaus pradžioje, kai didysis kunigaikštis Gediminas laiškuose kvietė į savo žemes amatininkus ir pirklius iš Vakarų Europos.

Vilniaus senamiestis yra vienas didžiausių išlikusių senamiesčių Rytų ir Vidurio Europoje. Jame gausu bažnyčių, kiemų ir siaurų gatvelių, o įvairių laikotarpių pastatai puikiai atspindi gotikos, renesanso, baroko ir klasicizmo architektūrą. Dėl šios priežasties senamiestis įtrauktas į UNESCO pasaulio paveldo sąrašą.

Šiandien mieste gyvena daugiau kaip penki šimtai tūkstančių žmonių. Vilniuje veikia universitetai, teatrai, muziejai ir daugybė įmonių, o informacinių technologijų sektorius pastaraisiais metais auga ypač sparčiai. Miestas garsėja ir savo žaliosiomis erdvėmis: parkai ir miškai užima beveik pusę jo teritorijos.
""")

TEXTS["lt-orai"] = ("lt", "Sinoptikai įspėja apie liūtis", """\
Lietuvos hidrometeorologijos tarnyba įspėja, kad artimiausiomis dienomis visoje šalyje laukiama gausių kritulių ir stipraus vėjo. Pajūryje vėjo gūsiai gali siekti dvidešimt penkis metrus per sekundę, todėl gyventojai raginami neparkuoti automobilių po medžiais ir pasirūpinti, kad nuo balkonų nebūtų nupūsti daiktai.

Ūkininkai nerimauja, kad ilgai trunkantis lietus gali pakenkti derliui. Daugelyje rajonų javai dar nenukulti, o drėgnuose laukuose sunkioji technika tiesiog negali dirbti. Žemės ūkio ministerija žadėjo įvertinti padėtį ir prireikus paskelbti ekstremaliąją situaciją, kuri leistų nukentėjusiems gauti kompensacijas.

Sinoptikų teigimu, orai turėtų pagerėti tik kitos savaitės viduryje, kai iš pietų atslinks šiltesnis ir sausesnis oras. Tuomet temperatūra dieną pakils iki dvidešimt dviejų laipsnių šilumos.
""")

TEXTS["et-tartu"] = ("et", "Tartu", """\
Tartu on Eesti suuruselt teine linn, mis asub Emajõe kaldal umbes saja kaheksakümne kilomeetri kaugusel Tallinnast. Linna esimene kirjalik mainimine pärineb aastast tuhat kolmkümmend, kui Kiievi vürst rajas siia kindluse. Keskajal oli Tartu tähtis kaubalinn ja kuulus Hansa Liitu.

Tartu Ülikool asutati aastal tuhat kuussada kolmkümmend kaks ning see on üks Põhja-Euroopa vanimaid ülikoole. Ülikooli tõttu nimetatakse Tartut sageli vaimu pealinnaks ja üliõpilaste linnaks. Siin on tegutsenud paljud tuntud teadlased, kirjanikud ja kunstnikud, kelle töö on mõjutanud kogu Eesti kultuuri.

Tänapäeval elab Tartus umbes sada tuhat inimest. Linnas on palju parke, muuseume ja teatreid, ning igal suvel toimub siin mitu suurt festivali. Raekoja platsil asuv suudlevate tudengite skulptuur on muutunud linna üheks tuntumaks sümboliks.
""")

TEXTS["et-maksud"] = ("et", "Riigikogu lihtsustas väikeettevõtjate aruandlust", """\
Riigikogu võttis kolmapäeval vastu seaduse muudatused, mis lihtsustavad väikeettevõtjate maksuaruandlust. Rahandusministeeriumi hinnangul vähendab see ettevõtete halduskoormust ligi kolmandiku võrra ning aitab eriti neid, kes tegutsevad maapiirkondades.

Ettevõtjate liit tervitas otsust, kuid märkis, et paljud probleemid on endiselt lahendamata. Liidu juhi sõnul on kõige suurem mure tööjõupuudus, sest noored lahkuvad sageli suurematesse linnadesse või välismaale. Valitsus lubas sügisel esitada eraldi kava, kuidas toetada töökohtade loomist väljaspool Tallinna ja Tartut.

Uued reeglid jõustuvad järgmise aasta esimesest jaanuarist. Maksu- ja tolliamet korraldab enne seda mitu tasuta koolitust, kus selgitatakse, kuidas aruandeid uues keskkonnas esitada. Šokolaadi- ja žurnaalitootjad said erandi.
""")

TEXTS["ru-baikal"] = ("ru", "Байкал", """\
Байкал — озеро тектонического происхождения в южной части Восточной Сибири, самое глубокое озеро на планете и крупнейший природный резервуар пресной воды. Его максимальная глубина составляет более тысячи шестисот метров, а площадь водной поверхности превышает тридцать тысяч квадратных километров.

В озеро впадает более трёхсот рек и ручьёв, а вытекает из него только одна река — Ангара. Вода в Байкале необычайно прозрачная: в ясную погоду камни на дне можно разглядеть на глубине до сорока метров. Зимой озеро покрывается толстым льдом, по которому местные жители и туристы ездят на машинах и санях.

Фауна озера очень разнообразна, и большинство видов животных и растений, обитающих в нём, не встречаются больше нигде в мире. Самый известный из них — байкальская нерпа, единственный пресноводный тюлень. В тысяча девятьсот девяносто шестом году Байкал был включён в список объектов всемирного наследия ЮНЕСКО.
""")

TEXTS["ru-metro"] = ("ru", "Открылась новая станция метро", """\
В понедельник в городе открылась новая станция метро, строительство которой продолжалось почти четыре года. На церемонии открытия мэр заявил, что благодаря новой линии жители северных районов смогут добираться до центра на двадцать минут быстрее, чем раньше.

Станция оформлена в современном стиле: светлые стены, стеклянные павильоны и большие информационные табло. Для пассажиров с ограниченными возможностями установлены лифты и специальные указатели. Власти обещают, что до конца года будут открыты ещё две станции на этой же линии.

Однако часть жителей выразила недовольство тем, что во время строительства было вырублено несколько сотен деревьев. Представители городской администрации ответили, что на их месте уже высажены молодые липы и клёны, а рядом со станцией появится новый сквер.
""")

TEXTS["en-baltic"] = ("en", "The Baltic Sea", """\
The Baltic Sea is an arm of the Atlantic Ocean, enclosed by Denmark, Estonia, Finland, Germany, Latvia, Lithuania, Poland, Russia and Sweden. It extends from the southern tip of Denmark to the Gulf of Bothnia in the north and covers an area of roughly four hundred thousand square kilometres.

Because many large rivers flow into it and its connection to the North Sea is narrow and shallow, the water of the Baltic is brackish: far less salty than the open ocean. This unusual environment supports a limited number of marine species, and many of the fish caught there, such as herring and cod, are smaller than their relatives in the Atlantic.

In the winter months the northern parts of the sea freeze over, and icebreakers keep the main shipping lanes open. The Baltic has been an important trade route since the Viking age and later became the heart of the Hanseatic League, whose merchants connected towns from Bruges to Novgorod.
""")

TEXTS["en-library"] = ("en", "Libraries to open longer", """\
The city council voted on Tuesday to extend the opening hours of public libraries, a decision that librarians say has been requested by residents for years. From next month, the central library will stay open until nine in the evening on weekdays, and branch libraries will open on Sunday afternoons for the first time.

Officials said the change would be funded by savings from a new energy contract and would not require raising local taxes. Several councillors argued that libraries are one of the few public spaces where people can study, work or simply spend time without having to buy anything.

A spokesperson for the library service said staff had been consulted and that new positions would be advertised within the next few weeks. Visitors will also be able to borrow laptops and use meeting rooms free of charge.
""")

TEXTS["de-bodensee"] = ("de", "Der Bodensee", """\
Der Bodensee liegt am nördlichen Rand der Alpen und ist mit einer Fläche von mehr als fünfhundert Quadratkilometern einer der größten Seen Mitteleuropas. An seinen Ufern grenzen Deutschland, Österreich und die Schweiz aneinander, wobei der genaue Verlauf der Grenzen auf dem See bis heute nicht vertraglich festgelegt ist.

Der Rhein fließt von Süden in den See hinein und verlässt ihn im Westen bei Stein am Rhein. Das Wasser des Bodensees dient mehreren Millionen Menschen in Baden-Württemberg als Trinkwasser. Deshalb gelten für die Schifffahrt, die Landwirtschaft und die Industrie in der Region besonders strenge Umweltauflagen.

Die milde Witterung begünstigt den Obst- und Weinbau, und die Insel Mainau ist für ihre Blumengärten bekannt. Jedes Jahr besuchen Hunderttausende Touristen die Städte Konstanz, Lindau und Bregenz, um zu wandern, Rad zu fahren oder mit dem Schiff über den See zu fahren.
""")

TEXTS["de-solar"] = ("de", "Solarpflicht für öffentliche Gebäude", """\
Die Bundesregierung hat am Mittwoch einen Gesetzentwurf beschlossen, der den Ausbau von Solaranlagen auf öffentlichen Gebäuden beschleunigen soll. Künftig müssen Schulen, Rathäuser und Krankenhäuser bei einer Dachsanierung prüfen, ob sich eine Photovoltaikanlage wirtschaftlich betreiben lässt.

Kommunale Spitzenverbände begrüßten das Vorhaben grundsätzlich, kritisierten jedoch die Finanzierung. Viele Städte und Gemeinden seien bereits hoch verschuldet und könnten die zusätzlichen Investitionen nicht ohne Hilfe des Bundes stemmen. Die Regierung verwies auf ein Förderprogramm, das im kommenden Jahr starten soll.

Der Bundestag wird sich voraussichtlich nach der Sommerpause mit dem Entwurf befassen. Umweltverbände forderten, die Pflicht auch auf private Neubauten auszuweiten.
""")

# Page furniture in each language: menu, footer.
CHROME = {
    "lv": (["Sākums", "Ziņas", "Sports", "Kultūra", "Ekonomika", "Laika ziņas", "Kontakti"],
           "Visas tiesības aizsargātas. Materiālu pārpublicēšana bez atļaujas aizliegta."),
    "lt": (["Pradžia", "Naujienos", "Sportas", "Kultūra", "Ekonomika", "Orai", "Kontaktai"],
           "Visos teisės saugomos. Kopijuoti be leidimo draudžiama."),
    "et": (["Avaleht", "Uudised", "Sport", "Kultuur", "Majandus", "Ilm", "Kontakt"],
           "Kõik õigused kaitstud. Materjalide kopeerimine loata on keelatud."),
    "ru": (["Главная", "Новости", "Спорт", "Культура", "Экономика", "Погода", "Контакты"],
           "Все права защищены. Перепечатка без разрешения запрещена."),
    "en": (["Home", "News", "Sport", "Culture", "Business", "Weather", "Contact"],
           "All rights reserved. Do not republish without permission."),
    "de": (["Startseite", "Nachrichten", "Sport", "Kultur", "Wirtschaft", "Wetter", "Kontakt"],
           "Alle Rechte vorbehalten. Nachdruck nur mit Genehmigung."),
}
